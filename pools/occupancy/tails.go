package occupancy

import "math"

// Tail probabilities of the sums the latency model uses. All return
// P(X > x) for the named X.

// normTail is P(Y > x) for Y normal with mean mu and s.d. sd (a point mass
// at mu when sd = 0).
func normTail(x, mu, sd float64) float64 {
	if sd <= 0 {
		if x < mu {
			return 1
		}
		return 0
	}
	return 0.5 * math.Erfc((x-mu)/(sd*math.Sqrt2))
}

// uniTail is P(U > x) for U uniform on (0, t).
func uniTail(x, t float64) float64 {
	if x <= 0 {
		return 1
	}
	if x >= t {
		return 0
	}
	return 1 - x/t
}

// uniNormTail is P(U + Y > x), U uniform on (0, t), Y normal (mu, sd):
// (sd/t)·[G(z0) − G(z1)] with G(z) = z·Φc(z) − φ(z) (G' = Φc),
// z0 = (x − mu)/sd, z1 = (x − t − mu)/sd.
func uniNormTail(x, t, mu, sd float64) float64 {
	if t <= 0 {
		return normTail(x, mu, sd)
	}
	if sd <= 1e-12*t {
		return uniTail(x-mu, t)
	}
	G := func(z float64) float64 {
		return z*0.5*math.Erfc(z/math.Sqrt2) - math.Exp(-z*z/2)/math.Sqrt(2*math.Pi)
	}
	z0, z1 := (x-mu)/sd, (x-t-mu)/sd
	return math.Min(1, math.Max(0, sd/t*(G(z0)-G(z1))))
}

// logPhi is log Φ(z), accurate in the far left tail.
func logPhi(z float64) float64 {
	if z > -30 {
		return math.Log(0.5 * math.Erfc(-z/math.Sqrt2))
	}
	// Φ(z) ≈ φ(z)/|z|·(1 − 1/z² + 3/z⁴)
	z2 := z * z
	return -z2/2 - math.Log(-z) - 0.5*math.Log(2*math.Pi) + math.Log1p(-1/z2+3/(z2*z2))
}

// emgTail is P(E + Y > x), E exponential with rate theta, Y normal (mu,
// sd) (the exponentially modified Gaussian):
// Φc(z) + exp(−θ(x−mu) + θ²sd²/2)·Φ(z − θ·sd), z = (x − mu)/sd.
func emgTail(x, theta, mu, sd float64) float64 {
	if math.IsInf(theta, 1) {
		return normTail(x, mu, sd)
	}
	if sd <= 0 {
		if x <= mu {
			return 1
		}
		return math.Exp(-theta * (x - mu))
	}
	z := (x - mu) / sd
	second := math.Exp(-theta*(x-mu) + theta*theta*sd*sd/2 + logPhi(z-theta*sd))
	return math.Min(1, normTail(x, mu, sd)+second)
}
