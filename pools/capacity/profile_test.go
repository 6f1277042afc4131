package capacity

import (
	"errors"
	"strings"
	"testing"

	"github.com/fleetsim/fleetsim/workload"
)

func TestParseProfile(t *testing.T) {
	p, err := ParseProfile("x", []byte("tau: 2000\nweights: {cached: 0.1}\nlong_context: {threshold: 4096, output: 8}\nincrement: 5\nminimum: 7\n"))
	if err != nil {
		t.Fatal(err)
	}
	// Omitted weights are the default's (1, _, 4, 4); the name falls back to
	// the argument.
	if p.Name != "x" || p.Tau != 2000 || p.Weights != (Weights{1, 0.1, 4, 4}) || p.Increment != 5 || p.Minimum != 7 ||
		p.Long == nil || p.Long.Threshold != 4096 || *p.Long.Output != 8 || p.Long.Input != nil {
		t.Errorf("parsed %+v", p)
	}
	for _, c := range []struct{ yaml, field string }{
		{"", "profile"},
		{"weights: {input: 1}", "tau"},
		{"tau: 0", "tau"},
		{"tau: -5", "tau"},
		{"tau: .nan", "tau"},
		{"tau: 1\nweights: {output: -1}", "weights.output"},
		{"tau: 1\nincrement: 0", "increment"},
		{"tau: 1\nminimum: -3", "minimum"},
		{"tau: 1\nlong_context: {input: 2}", "long_context.threshold"},
		{"tau: 1\nlong_context: {threshold: 10}", "long_context"},
		{"tau: 1\nlong_context: {threshold: -1, input: 2}", "long_context.threshold"},
		{"tau: 1\n---\ntau: 2\n", "profile"},
	} {
		_, err := ParseProfile("x", []byte(c.yaml))
		var fe *workload.FieldError
		if !errors.As(err, &fe) || fe.Field != c.field {
			t.Errorf("%q: err = %v, want a FieldError on %s", c.yaml, err, c.field)
		}
	}
	for _, y := range []string{"tau: 1\nbogus: 2", "tau: [1", "- 1\n- 2"} {
		if _, err := ParseProfile("x", []byte(y)); err == nil || strings.Contains(err.Error(), "\n") {
			t.Errorf("%q: err = %v, want one line", y, err)
		}
	}
}

func TestBuiltinProfiles(t *testing.T) {
	names := ProfileNames()
	if len(names) < 2 || names[0] != DefaultProfile {
		t.Fatalf("built-in profiles %v", names)
	}
	for _, n := range names {
		p, _ := LookupProfile(n)
		if p.Source == "" {
			t.Errorf("%s: no source", n)
		}
		if n != DefaultProfile && !strings.HasPrefix(n, "example-") {
			t.Errorf("%s: provider numbers not verified by fleetsim must be named example-*", n)
		}
	}
	if _, err := LookupProfile("nope"); err == nil || !strings.Contains(err.Error(), "default") {
		t.Errorf("unknown profile: %v", err)
	}
}

// FuzzParseProfile: any input either parses into a valid profile or gives
// one line; never a panic.
func FuzzParseProfile(f *testing.F) {
	for _, n := range ProfileNames() {
		data, _ := builtinFS.ReadFile("profiles/" + n + ".yaml")
		f.Add(data)
	}
	f.Add([]byte("tau: 1\nlong_context: {threshold: 0, thinking: 0}\n"))
	f.Add([]byte("tau: 1e400"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p, err := ParseProfile("fuzz", data)
		if err != nil {
			if strings.Contains(err.Error(), "\n") {
				t.Fatalf("multi-line error %q", err)
			}
			return
		}
		if err := p.Validate(); err != nil {
			t.Fatalf("parsed an invalid profile: %v", err)
		}
		w := p.Work(Request{Input: 100, Cached: 10, Output: 10, Thinking: 1})
		if !(w >= 0) {
			t.Fatalf("work %v", w)
		}
	})
}
