// Package variants implements the model and optimizer of llm-d's Workload
// Variant Autoscaler (WVA, docs/references.md): a linear
// ITL profile fitted from benchmarks (fit.go, bench.go), a per-replica
// state-dependent birth–death queue that turns SLOs into a maximum request
// rate per replica (queue.go, model.go), and a cost-minimizing optimizer
// over variants — a model on an accelerator arrangement — in unlimited mode
// or, with an accelerator inventory, in limited mode with four saturation
// policies (optimize.go, besteffort.go). Configuration files are parsed by
// config.go and profile.go.
//
// Times are milliseconds throughout, as in the upstream: decode(b) = α + β·b
// and prefill(b) = γ + δ·in·b are in ms, rates are requests per second at
// the API and requests per millisecond inside the queue model.
//
// The package is pure: it reads from io.Readers and byte slices and never
// opens a file. docs/variants.md documents every equation and choice.
package variants
