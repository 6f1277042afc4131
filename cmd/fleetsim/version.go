package main

// version is the fleetsim version recorded in summary.json and printed by
// `fleetsim simulate --version`. It is a constant (not build information) so
// the same run gives byte-identical outputs.
const version = "0.1.0-dev"
