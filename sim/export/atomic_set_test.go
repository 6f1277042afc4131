package export

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// setDir writes the earlier files a=A0, b=B0 (no c) into a new directory.
func setDir(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for name, data := range map[string]string{"a": "A0", "b": "B0"} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	return dir
}

// stageNew stages a=A1, b=B1, c=C1 in a new set.
func stageNew(t *testing.T, dir string) *OutputSet {
	t.Helper()
	s := NewOutputSet()
	for _, name := range []string{"a", "b", "c"} {
		if err := s.WriteFile(filepath.Join(dir, name), []byte(strings.ToUpper(name)+"1")); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// dirState is dir's files as "name=content", sorted.
func dirState(t *testing.T, dir string) []string {
	t.Helper()
	ents, err := os.ReadDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	var st []string
	for _, e := range ents {
		b, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			t.Fatal(err)
		}
		st = append(st, e.Name()+"="+string(b))
	}
	slices.Sort(st)
	return st
}

func wantState(t *testing.T, dir string, want ...string) {
	t.Helper()
	if got := dirState(t, dir); !slices.Equal(got, want) {
		t.Errorf("directory holds %q, want %q", got, want)
	}
}

// TestOutputSetStagesUntilReplace: the files of a set stay under their
// temporary names until Replace; Abort before it removes them only.
func TestOutputSetStagesUntilReplace(t *testing.T) {
	dir := setDir(t)
	s := stageNew(t, dir)
	if got := dirState(t, dir); len(got) != 5 || !slices.Contains(got, "a=A0") || !slices.Contains(got, "b=B0") {
		t.Errorf("after staging: %q; want a=A0, b=B0 and 3 temporary files", got)
	}
	fi, err := s.Lstat(filepath.Join(dir, "c"))
	if err != nil || fi.Size() != 2 {
		t.Errorf("Lstat of the staged c: %v, %v; want its 2 bytes", fi, err)
	}
	s.Abort()
	wantState(t, dir, "a=A0", "b=B0")
}

// TestOutputSetReplace: Replace puts every file in place, the earlier ones
// aside until Finish; Abort after Replace puts them back.
func TestOutputSetReplace(t *testing.T) {
	dir := setDir(t)
	s := stageNew(t, dir)
	if err := s.Replace(); err != nil {
		t.Fatal(err)
	}
	s.Abort()
	wantState(t, dir, "a=A0", "b=B0")

	s = stageNew(t, dir)
	if err := s.Replace(); err != nil {
		t.Fatal(err)
	}
	s.Finish()
	s.Abort() // no-op once finished
	wantState(t, dir, "a=A1", "b=B1", "c=C1")
}

// TestOutputSetReplaceFailsPartWay: a rename failing at the second or the
// third file leaves the earlier files as they were (the first one put
// back, the new c removed) and no temporary or aside file.
func TestOutputSetReplaceFailsPartWay(t *testing.T) {
	for _, at := range []string{"b", "c"} {
		t.Run(at, func(t *testing.T) {
			dir := setDir(t)
			s := stageNew(t, dir)
			testHookPlace = func(p string) error {
				if filepath.Base(p) == at {
					return errors.New("injected rename failure")
				}
				return nil
			}
			defer func() { testHookPlace = func(string) error { return nil } }()
			if err := s.Replace(); err == nil || !strings.Contains(err.Error(), "injected") {
				t.Errorf("Replace: %v; want the injected failure", err)
			}
			wantState(t, dir, "a=A0", "b=B0")
		})
	}
	// A path made a directory after staging: not replaced, nothing lost.
	dir := setDir(t)
	s := stageNew(t, dir)
	if err := os.Mkdir(filepath.Join(dir, "c"), 0o755); err != nil {
		t.Fatal(err)
	}
	var nr *NotRegularError
	if err := s.Replace(); !errors.As(err, &nr) {
		t.Errorf("Replace over a directory: %v; want a *NotRegularError", err)
	}
	if err := os.Remove(filepath.Join(dir, "c")); err != nil {
		t.Fatal(err)
	}
	wantState(t, dir, "a=A0", "b=B0")
}
