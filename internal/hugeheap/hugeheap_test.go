package hugeheap

import (
	"strings"
	"testing"
)

// TestSetting: the values of FLEETSIM_HUGEPAGES docs/cli.md names turn
// Prepare on or off in any case; any other value is an error naming the
// variable and the value (a typo such as "of" must not leave it on).
func TestSetting(t *testing.T) {
	for v, want := range map[string]bool{
		"": true, "on": true, "ON": true, "1": true, "true": true, "Yes": true,
		"off": false, "OFF": false, "Off": false, "0": false, "false": false, "FALSE": false, "no": false,
	} {
		t.Setenv(EnvVar, v)
		got, err := Setting()
		if got != want || err != nil {
			t.Errorf("%s=%q: Setting = %v, %v, want %v, nil", EnvVar, v, got, err, want)
		}
	}
	for _, v := range []string{"of", "maybe", " off", "2", "disable"} {
		t.Setenv(EnvVar, v)
		got, err := Setting()
		if got || err == nil {
			t.Errorf("%s=%q: Setting = %v, %v, want false and an error", EnvVar, v, got, err)
			continue
		}
		if msg := err.Error(); !strings.Contains(msg, EnvVar) || !strings.Contains(msg, `"`+v+`"`) || !strings.Contains(msg, "on or off") {
			t.Errorf("%s=%q: error %q does not name the variable, value and values allowed", EnvVar, v, msg)
		}
	}
}
