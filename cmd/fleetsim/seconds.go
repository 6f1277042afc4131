package main

import (
	"fmt"
	"strconv"
	"time"
)

// parseSeconds reads a duration ("500ms", "0.5s") or plain seconds ("0.5"):
// the one syntax of every latency flag.
func parseSeconds(s string) (float64, error) {
	if s == "" || s == "0" {
		return 0, nil
	}
	if v, err := strconv.ParseFloat(s, 64); err == nil {
		return v, nil
	}
	d, err := time.ParseDuration(s)
	if err != nil {
		return 0, fmt.Errorf("want a duration such as 500ms or 0.5s")
	}
	return d.Seconds(), nil
}

// secondsValue is a pflag.Value of seconds written with parseSeconds's
// syntax (simulate's and sweep's --slo-ttft, --slo-tpot).
type secondsValue struct{ p *float64 }

func (v secondsValue) Set(s string) error {
	x, err := parseSeconds(s)
	if err != nil {
		return err
	}
	*v.p = x
	return nil
}

func (v secondsValue) String() string {
	if v.p == nil {
		return "0"
	}
	return strconv.FormatFloat(*v.p, 'g', -1, 64) + "s"
}

func (v secondsValue) Type() string { return "duration" }
