package osd

import "math"

// Abramowitz & Stegun 26.2.23 coefficients (rational approximation of the
// normal quantile), as guidellm's approx_t_ppf uses them.
var (
	asC = [3]float64{2.515517, 0.802853, 0.010328}
	asD = [3]float64{1.432788, 0.189269, 0.001308}
)

// TQuantile approximates the p-quantile of Student's t distribution with df
// degrees of freedom exactly as guidellm's approx_t_ppf does: the normal
// quantile z by Abramowitz & Stegun 26.2.23, then the first two terms of the
// Cornish–Fisher expansion, z + g1/df + g2/df². It returns NaN when df <= 0.
// p must be in (0, 1). The approximation is crude at small df (6.479 at df 1
// for p 0.975, where the exact quantile is 12.706); OSD's thresholds were
// tuned with it, so it is kept.
func TQuantile(p, df float64) float64 {
	return tFromZ(normalQuantile(p), df)
}

// normalQuantile is the A&S 26.2.23 approximation of the standard normal
// p-quantile (absolute error below 4.5e-4).
func normalQuantile(p float64) float64 {
	var z float64
	if p < 0.5 {
		t := math.Sqrt(-2 * math.Log(p))
		z = -(t - ((asC[2]*t+asC[1])*t+asC[0])/(((asD[2]*t+asD[1])*t+asD[0])*t+1))
	} else {
		t := math.Sqrt(-2 * math.Log(1-p))
		z = t - ((asC[2]*t+asC[1])*t+asC[0])/(((asD[2]*t+asD[1])*t+asD[0])*t+1)
	}
	return z
}

// tFromZ converts a normal quantile z to the t quantile at df degrees of
// freedom by the first Cornish–Fisher terms.
func tFromZ(z, df float64) float64 {
	if df <= 0 {
		return math.NaN()
	}
	z2 := z * z
	z3 := z2 * z
	z4 := z3 * z
	g1 := (z3 + z) / 4
	g2 := (5*z4 + 16*z3 + 3*z2) / 96
	return z + g1/df + g2/(df*df)
}
