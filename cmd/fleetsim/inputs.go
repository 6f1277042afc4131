package main

import (
	"errors"
	"fmt"

	"github.com/fleetsim/fleetsim/workload"
)

// Size limits of the documents the CLI reads whole (docs/cli.md, "Input
// limits"). Trace and CDF limits are workload.MaxTraceBytes,
// workload.MaxTraceLineBytes and workload.MaxCDFBytes.
const (
	maxScenarioBytes = 1 << 20  // --config, 1 MiB
	maxPlanBytes     = 16 << 20 // --plan, 16 MiB
	maxModelsBytes   = 1 << 20  // plan --models, 1 MiB
	maxSpecBytes     = 1 << 20  // catalog profile files and Hugging Face config.json, 1 MiB
	maxPromptBytes   = 16 << 20 // compress FILE, 16 MiB
)

// readInput reads the file path ("-": standard input) named by flag, at
// most limit bytes; its errors are one line starting with flag and path.
func readInput(flag, path string, limit int64) ([]byte, error) {
	data, err := workload.ReadFileLimit(path, limit)
	var le *workload.LimitError
	switch {
	case errors.As(err, &le):
		return nil, fmt.Errorf("%s: %s", flag, le.Error())
	case err != nil:
		return nil, fmt.Errorf("%s %s: %s", flag, path, oneLine(err))
	}
	return data, nil
}

// readSpecInput reads a catalog profile file or config.json of at most
// maxSpecBytes (an endless /dev/zero is an error, not an out-of-memory
// crash).
func readSpecInput(path string) ([]byte, error) {
	data, err := workload.ReadFileLimit(path, maxSpecBytes)
	if err != nil {
		return nil, errors.New(oneLine(err))
	}
	return data, nil
}
