package workload

import (
	"fmt"
	"math"
	"path/filepath"
	"strings"
)

// FieldError is an invalid Spec field: its name as in a scenario file
// ("rate", "burst_ratio", ...), the offending value and what is allowed. Its
// message is one line: `rate = -1: must be a finite number > 0 requests/s`.
type FieldError struct {
	Field   string // scenario-file name of the field
	Value   any    // the offending value
	Allowed string // what is allowed
}

func (e *FieldError) Error() string {
	v := e.Value
	if s, ok := v.(string); ok {
		v = fmt.Sprintf("%q", s)
	}
	return fmt.Sprintf("%s = %v: %s", e.Field, v, e.Allowed)
}

func fieldErr(field string, value any, allowed string, args ...any) error {
	return &FieldError{Field: field, Value: value, Allowed: fmt.Sprintf(allowed, args...)}
}

func isFinite(x float64) bool { return !math.IsNaN(x) && !math.IsInf(x, 0) }

// Ranges of a Spec's numbers (docs/cli.md, "Numeric ranges").
const (
	// MinRate is the lowest arrival rate, requests/s (one request every
	// 11.6 days). A simulated CDF workload needs more: its arrivals must
	// fit the simulator's time range (sim.MinRate).
	MinRate = 1e-6
	// MaxRate is the highest arrival rate, requests/s (the planner's bound).
	MaxRate = 1e9
	// MaxRequests bounds the requests of a run.
	MaxRequests = 1_000_000_000
	// MaxBurstRatio bounds burst_ratio (high-state / low-state rate).
	MaxBurstRatio = 1000
	// MaxSojournS bounds burst_mean_s and calm_mean_s, seconds.
	MaxSojournS = 1e6
)

// Arrival, split and trace-format names of a Spec.
const (
	ArrivalPoisson = "poisson" // Poisson arrivals at Rate (the default)
	ArrivalBursty  = "bursty"  // two-state MMPP with mean rate Rate
	ArrivalTrace   = "trace"   // trace replay (implied by Trace; optional)

	SplitFixedName  = "fixed"  // L_in = floor(InputFraction·L) (the default)
	SplitNormalName = "normal" // output fraction ~ N(OutputMu, OutputSigma) clipped to [0.02, 0.95]

	TraceAzure    = "azure"    // Azure LLM trace CSV: TIMESTAMP,ContextTokens,GeneratedTokens
	TraceMooncake = "mooncake" // Mooncake JSONL: timestamp (ms), input_length, output_length
)

// Validate checks s without any I/O (a CDF or trace file is opened by
// NewSource) and returns the first problem as a *FieldError naming the field,
// the value and what is allowed. The rules:
//
//   - exactly one of cdf and trace is set;
//   - rate is finite; > 0 requests/s with a CDF, >= 0 with a trace (0
//     replays the trace's own timestamps);
//   - requests >= 1 (a trace with fewer rows simply ends early);
//   - arrival is "", "poisson" or "bursty" with a CDF; "", "poisson" (the
//     default, meaning nothing for a trace) or "trace" with a trace;
//   - burst_ratio is 0 (default 4) or >= 1; burst_mean_s and calm_mean_s are
//     0 (defaults 5 s and 20 s) or > 0; all finite;
//   - split is "", "fixed" or "normal"; input_fraction is 0 (default 0.8) or
//     in (0, 1); output_mu is 0 (default 0.10) or in (0, 1); output_sigma is
//     0 (default 0.05) or > 0; all finite;
//   - trace_format is "", "azure", "mooncake" or "generic"; when empty the
//     trace file name must end in .csv (azure) or .jsonl (mooncake); a
//     generic trace ends in .csv, .jsonl or .json;
//   - categories has known names (prose, code, cjk, rag, mixed) and shares in
//     [0, 1] summing to 1 within 1e-9.
//
// Parameters of a model that is not selected are errors, as unknown keys
// are: burst_ratio, burst_mean_s and calm_mean_s apply only to arrival
// bursty; split, input_fraction, output_mu and output_sigma only to a CDF;
// input_fraction only to split fixed; output_mu and output_sigma only to
// split normal.
func (s Spec) Validate() error {
	switch {
	case s.CDF == "" && s.Trace == "":
		return fieldErr("cdf", s.CDF, "a workload needs a CDF (azure, lmsys, agent-heavy or a CDF JSON file) or a trace file")
	case s.CDF != "" && s.Trace != "":
		return fieldErr("trace", s.Trace, "give either a CDF (cdf = %q) or a trace, not both", s.CDF)
	}
	trace := s.Trace != ""
	if s.Requests < 1 || s.Requests > MaxRequests {
		return fieldErr("requests", s.Requests, "must be in [1, %d]", MaxRequests)
	}
	if s.RateProfile != "" {
		if err := s.validateProfile(); err != nil {
			return err
		}
	} else if !isFinite(s.Rate) || s.Rate < 0 || (s.Rate == 0 && !trace) || s.Rate > MaxRate {
		if trace {
			return fieldErr("rate", s.Rate, "must be 0 (the trace's own rate) or in [%g, %g] requests/s", MinRate, MaxRate)
		}
		return fieldErr("rate", s.Rate, "must be in [%g, %g] requests/s", MinRate, MaxRate)
	}
	switch s.Arrival {
	case "", ArrivalPoisson:
	case ArrivalBursty:
		if trace && s.RateProfile == "" {
			return fieldErr("arrival", s.Arrival, "a trace replays its own timestamps (allowed with a trace: trace, or empty)")
		}
	case ArrivalTrace:
		if trace && s.RateProfile != "" {
			return fieldErr("arrival", s.Arrival, "with a rate_profile the arrivals follow the profile (allowed: poisson, bursty)")
		}
		if !trace {
			return fieldErr("arrival", s.Arrival, "needs a trace file (allowed with a CDF: poisson, bursty)")
		}
	default:
		return fieldErr("arrival", s.Arrival, "allowed: poisson, bursty (or trace with a trace file)")
	}
	if !isFinite(s.BurstRatio) || (s.BurstRatio != 0 && s.BurstRatio < 1) || s.BurstRatio > MaxBurstRatio {
		return fieldErr("burst_ratio", s.BurstRatio, "must be in [1, %g] (high-state rate / low-state rate; 0 = default %g)", float64(MaxBurstRatio), DefaultBurstRatio)
	}
	if !isFinite(s.BurstMeanS) || s.BurstMeanS < 0 || s.BurstMeanS > MaxSojournS {
		return fieldErr("burst_mean_s", s.BurstMeanS, "must be in (0, %g] seconds (0 = default %g)", float64(MaxSojournS), DefaultBurstMeanS)
	}
	if !isFinite(s.CalmMeanS) || s.CalmMeanS < 0 || s.CalmMeanS > MaxSojournS {
		return fieldErr("calm_mean_s", s.CalmMeanS, "must be in (0, %g] seconds (0 = default %g)", float64(MaxSojournS), DefaultCalmMeanS)
	}
	switch s.Split {
	case "", SplitFixedName, SplitNormalName:
	default:
		return fieldErr("split", s.Split, "allowed: fixed, normal")
	}
	if !isFinite(s.InputFraction) || s.InputFraction < 0 || s.InputFraction >= 1 {
		return fieldErr("input_fraction", s.InputFraction, "must be in (0, 1) (0 = default %g)", DefaultInputFraction)
	}
	if !isFinite(s.OutputMu) || s.OutputMu < 0 || s.OutputMu >= 1 {
		return fieldErr("output_mu", s.OutputMu, "must be in (0, 1) (0 = default %g)", DefaultOutputMu)
	}
	if !isFinite(s.OutputSigma) || s.OutputSigma < 0 || s.OutputSigma > 1 {
		return fieldErr("output_sigma", s.OutputSigma, "must be in (0, 1] (0 = default %g)", DefaultOutputSigma)
	}
	if err := s.checkApplies(); err != nil {
		return err
	}
	if err := s.checkPrefixKeys(); err != nil {
		return err
	}
	if trace {
		if _, err := traceFormat(s.Trace, s.TraceFormat); err != nil {
			return err
		}
	} else if s.TraceFormat != "" {
		return fieldErr("trace_format", s.TraceFormat, "applies only to a trace (trace is empty)")
	}
	if err := validateCategories(s.Categories); err != nil {
		return err
	}
	return nil
}

// WithDefaults returns s with every empty or zero optional field of the
// selected models set to its default: arrival poisson (trace with a trace
// file); with bursty arrivals burst ratio 4, burst and calm mean sojourns 5
// s and 20 s; with a CDF split fixed and input fraction 0.8, or with split
// normal output mu 0.10 and sigma 0.05 (the token-budget paper's Azure
// values); trace format by file extension; categories {prose: 1}.
// Parameters of models not selected stay zero, so the result validates
// again. It is what a run summary records.
func (s Spec) WithDefaults() Spec {
	trace := s.Trace != ""
	if s.Arrival == "" {
		s.Arrival = ArrivalPoisson
		if trace && s.RateProfile == "" {
			s.Arrival = ArrivalTrace
		}
	}
	s = s.profileDefaults()
	if s.Arrival == ArrivalBursty {
		if s.BurstRatio == 0 {
			s.BurstRatio = DefaultBurstRatio
		}
		if s.BurstMeanS == 0 {
			s.BurstMeanS = DefaultBurstMeanS
		}
		if s.CalmMeanS == 0 {
			s.CalmMeanS = DefaultCalmMeanS
		}
	}
	if s.Split == "" && !trace {
		s.Split = SplitFixedName
	}
	switch s.Split {
	case SplitFixedName:
		if s.InputFraction == 0 {
			s.InputFraction = DefaultInputFraction
		}
	case SplitNormalName:
		if s.OutputMu == 0 {
			s.OutputMu = DefaultOutputMu
		}
		if s.OutputSigma == 0 {
			s.OutputSigma = DefaultOutputSigma
		}
	}
	if s.Trace != "" && s.TraceFormat == "" {
		if f, err := traceFormat(s.Trace, ""); err == nil {
			s.TraceFormat = f
		}
	}
	if s.SessionTurns >= 1 {
		if s.SessionMaxTokens == 0 {
			s.SessionMaxTokens = DefaultSessionMaxTokens
		}
		if s.SessionsActive == 0 {
			s.SessionsActive = DefaultSessionsActive
		}
	}
	if len(s.Categories) == 0 {
		s.Categories = map[string]float64{"prose": 1}
	} else { // copy: never share the caller's map
		m := make(map[string]float64, len(s.Categories))
		for k, v := range s.Categories {
			m[k] = v
		}
		s.Categories = m
	}
	return s
}

// traceFormat returns the trace format of path: format when set, otherwise by
// extension (.csv azure, .jsonl mooncake).
func traceFormat(path, format string) (string, error) {
	switch format {
	case TraceAzure, TraceMooncake:
		return format, nil
	case TraceGeneric:
		switch strings.ToLower(filepath.Ext(path)) {
		case ".csv", ".jsonl", ".json":
			return format, nil
		}
		return "", fieldErr("trace", path, "a generic trace must end in .csv, .jsonl or .json")
	case "":
	default:
		return "", fieldErr("trace_format", format, "allowed: azure, mooncake, generic (or empty: by file extension)")
	}
	switch strings.ToLower(filepath.Ext(path)) {
	case ".csv":
		return TraceAzure, nil
	case ".jsonl":
		return TraceMooncake, nil
	}
	return "", fieldErr("trace", path, "cannot tell the trace format from the extension (want .csv for azure, .jsonl for mooncake, or set trace_format)")
}

// checkApplies reports a parameter set for a model s does not select.
func (s Spec) checkApplies() error {
	trace := s.Trace != ""
	if s.Arrival != ArrivalBursty {
		arrival := s.Arrival
		if arrival == "" {
			arrival = ArrivalPoisson
			if trace && s.RateProfile == "" {
				arrival = ArrivalTrace
			}
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"burst_ratio", s.BurstRatio}, {"burst_mean_s", s.BurstMeanS}, {"calm_mean_s", s.CalmMeanS}} {
			if f.v != 0 {
				return fieldErr(f.name, f.v, "applies only to arrival bursty (arrival is %s)", arrival)
			}
		}
	}
	if trace {
		if s.Split != "" {
			return fieldErr("split", s.Split, "applies only to a CDF workload (a trace gives each request's input and output lengths)")
		}
		for _, f := range []struct {
			name string
			v    float64
		}{{"input_fraction", s.InputFraction}, {"output_mu", s.OutputMu}, {"output_sigma", s.OutputSigma}} {
			if f.v != 0 {
				return fieldErr(f.name, f.v, "applies only to a CDF workload (a trace gives each request's input and output lengths)")
			}
		}
		return nil
	}
	if s.Split == SplitNormalName && s.InputFraction != 0 {
		return fieldErr("input_fraction", s.InputFraction, "applies only to split fixed (split is normal)")
	}
	if s.Split != SplitNormalName {
		for _, f := range []struct {
			name string
			v    float64
		}{{"output_mu", s.OutputMu}, {"output_sigma", s.OutputSigma}} {
			if f.v != 0 {
				return fieldErr(f.name, f.v, "applies only to split normal (split is fixed)")
			}
		}
	}
	return nil
}

// checkPrefixKeys checks the shared-prefix keys: system_prompt_tokens in
// [0, MaxCDFTokens]; session_turns 0 or in [1, MaxSessionTurns];
// session_max_tokens 0 or in [1, MaxCDFTokens] and sessions_active 0 or in
// [1, MaxSessionsActive], both only with session_turns; all only with a CDF.
func (s Spec) checkPrefixKeys() error {
	if s.Trace != "" {
		for _, f := range []struct {
			name string
			v    float64
		}{{"system_prompt_tokens", float64(s.SystemPromptTokens)}, {"session_turns", s.SessionTurns},
			{"session_max_tokens", float64(s.SessionMaxTokens)}, {"sessions_active", float64(s.SessionsActive)}} {
			if f.v != 0 {
				return fieldErr(f.name, f.v, "applies only to a CDF workload (a Mooncake trace carries its own hash_ids)")
			}
		}
		return nil
	}
	if s.SystemPromptTokens < 0 || s.SystemPromptTokens > MaxCDFTokens {
		return fieldErr("system_prompt_tokens", s.SystemPromptTokens, "must be in [0, %d] tokens (0 = no system prompt)", MaxCDFTokens)
	}
	if !isFinite(s.SessionTurns) || (s.SessionTurns != 0 && s.SessionTurns < 1) || s.SessionTurns > MaxSessionTurns {
		return fieldErr("session_turns", s.SessionTurns, "must be 0 (no sessions) or in [1, %g] (mean turns per session)", float64(MaxSessionTurns))
	}
	if s.SessionTurns == 0 {
		if s.SessionMaxTokens != 0 {
			return fieldErr("session_max_tokens", s.SessionMaxTokens, "applies only with session_turns >= 1")
		}
		if s.SessionsActive != 0 {
			return fieldErr("sessions_active", s.SessionsActive, "applies only with session_turns >= 1")
		}
	}
	if s.SessionMaxTokens < 0 || s.SessionMaxTokens > MaxCDFTokens {
		return fieldErr("session_max_tokens", s.SessionMaxTokens, "must be in [1, %d] tokens (0 = default %d)", MaxCDFTokens, DefaultSessionMaxTokens)
	}
	if s.SessionsActive < 0 || s.SessionsActive > MaxSessionsActive {
		return fieldErr("sessions_active", s.SessionsActive, "must be in [1, %d] (0 = default %d)", MaxSessionsActive, DefaultSessionsActive)
	}
	return nil
}
