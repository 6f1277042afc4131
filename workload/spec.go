package workload

// Spec is the declarative description of a run's workload, as it appears in a
// scenario file and on the command line. NewSource (implemented in this
// package) turns a validated Spec into a Source.
//
// Exactly one of CDF and Trace is set. With a CDF, arrivals follow Arrival
// ("poisson" or "bursty") at Rate; with a Trace, arrivals replay the trace's
// timestamps, rescaled to Rate when Rate > 0.
//
// Zero values of the optional fields mean their defaults (see WithDefaults
// and Validate): arrival poisson, burst ratio 4, burst/calm mean sojourns
// 5 s/20 s, split fixed with input fraction 0.8, normal-split mu 0.10 and
// sigma 0.05, trace format by extension, categories all prose.
type Spec struct {
	// CDF names a built-in CDF ("azure", "lmsys", "agent-heavy") or a CDF
	// JSON file; lengths drawn from it are L_total = L_in + L_out.
	CDF string `json:"cdf,omitempty" yaml:"cdf,omitempty"`
	// Trace is a trace file (Azure LLM trace CSV, Mooncake JSONL or a
	// generic CSV/JSONL trace).
	Trace string `json:"trace,omitempty" yaml:"trace,omitempty"`
	// TraceFormat is "azure", "mooncake", "generic" (see TraceGeneric) or ""
	// (by file extension: .csv azure, .jsonl mooncake).
	TraceFormat string `json:"trace_format,omitempty" yaml:"trace_format,omitempty"`
	// Rate is the mean arrival rate, requests per second.
	Rate float64 `json:"rate" yaml:"rate"`
	// Requests is the number of requests to generate (>= 1). A trace is
	// replayed from its first row for at most Requests rows; a shorter trace
	// simply ends early.
	Requests int `json:"requests" yaml:"requests"`
	// Arrival is "poisson" (default) or "bursty" (two-state MMPP).
	Arrival string `json:"arrival,omitempty" yaml:"arrival,omitempty"`
	// BurstRatio is the bursty process's high-state rate over its low-state
	// rate (>= 1; default 4); the mean rate stays Rate.
	BurstRatio float64 `json:"burst_ratio,omitempty" yaml:"burst_ratio,omitempty"`
	// BurstMeanS and CalmMeanS are the mean sojourn times of the bursty
	// process's high and low states, seconds (defaults 5 and 20).
	BurstMeanS float64 `json:"burst_mean_s,omitempty" yaml:"burst_mean_s,omitempty"`
	CalmMeanS  float64 `json:"calm_mean_s,omitempty" yaml:"calm_mean_s,omitempty"`
	// Split is the input/output split model: "fixed" (L_in = floor(F*L),
	// default F = 0.8) or "normal" (output fraction ~ N(Mu, Sigma) clipped to
	// [0.02, 0.95], the token-budget paper's model; defaults Mu 0.10 and
	// Sigma 0.05, its Azure values). Either way L_in >= 1 and L_out >= 1.
	// Ignored with a trace, whose rows give L_in and L_out.
	Split         string  `json:"split,omitempty" yaml:"split,omitempty"`
	InputFraction float64 `json:"input_fraction,omitempty" yaml:"input_fraction,omitempty"`
	OutputMu      float64 `json:"output_mu,omitempty" yaml:"output_mu,omitempty"`
	OutputSigma   float64 `json:"output_sigma,omitempty" yaml:"output_sigma,omitempty"`
	// RateProfile makes the arrival rate vary in time, λ(t) (docs/day.md):
	// "const:RATE", "sin:mean=M,ratio=R,period=P,peak=T",
	// "step:T=RATE,...[,period=P]", "linear:T=RATE,...[,period=P]" or
	// "trace-shape:FILE[,bucket=B][,mean=M][,format=F]". Arrivals are the
	// Arrival process at the profile's mean rate, time-changed to λ(t)
	// (see Profiled); with a trace, the rows give the lengths and the
	// profile the arrival times. Rate is then 0 (the profile's mean) or
	// that mean.
	RateProfile string `json:"rate_profile,omitempty" yaml:"rate_profile,omitempty"`
	// Categories is the content mix, category name -> share (shares sum to 1).
	// Empty means all prose. Names: prose, code, cjk, rag, mixed.
	Categories map[string]float64 `json:"categories,omitempty" yaml:"categories,omitempty"`

	// Shared prefixes of a CDF workload (see prefixgen.go and
	// docs/model.md, "Requests with prefixes"); all zero = none, and requests
	// carry no Prefix.
	//
	// SystemPromptTokens puts a system prompt of this many tokens, one per
	// category, in front of every session's first prompt (the drawn L_in
	// follows it), tokens.
	SystemPromptTokens int `json:"system_prompt_tokens,omitempty" yaml:"system_prompt_tokens,omitempty"`
	// SessionTurns is the mean number of turns of a multi-turn session
	// (>= 1; 0 = every request is its own session): turn k's prompt is turn
	// k-1's prompt, its output and a new drawn L_in.
	SessionTurns float64 `json:"session_turns,omitempty" yaml:"session_turns,omitempty"`
	// SessionMaxTokens ends a session whose next turn would exceed it
	// (L_in + L_out), tokens; 0 = default 8192.
	SessionMaxTokens int `json:"session_max_tokens,omitempty" yaml:"session_max_tokens,omitempty"`
	// SessionsActive is how many sessions are open at once (a new session
	// replaces the oldest); 0 = default 16.
	SessionsActive int `json:"sessions_active,omitempty" yaml:"sessions_active,omitempty"`
}
