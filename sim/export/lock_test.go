package export

import (
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// Review of #20 item 6: the sweep lock trusted the process id in the lock
// file. A lock whose pid was reused by another live process (here pid 1),
// an empty one (a process killed between creating it and writing its pid)
// or one holding garbage refused every later sweep for good ("another
// fleetsim process is writing"), though nothing held it. The lock is now
// the kernel's (flock), released however its holder ends: such files are
// taken over, and a lock held by a live LockDir is still refused.
func TestLockDirLeftovers(t *testing.T) {
	for _, content := range []string{"1\n", "", "garbage\n", "999999999\n"} {
		dir := t.TempDir()
		path := filepath.Join(dir, LockName)
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
		unlock, err := LockDir(dir)
		if err != nil {
			t.Errorf("lock file holding %q and held by nobody: %v", content, err)
			continue
		}
		unlock()
		if _, err := os.Lstat(path); !os.IsNotExist(err) {
			t.Errorf("lock file left after unlock: %v", err)
		}
	}
	// a held lock refuses a second holder (another open file description,
	// as another process would have), naming the holder's pid
	dir := t.TempDir()
	unlock, err := LockDir(dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = LockDir(dir)
	var le *LockedError
	if !errors.As(err, &le) || le.PID != os.Getpid() {
		t.Fatalf("second LockDir while held: %v, want a LockedError naming pid %d", err, os.Getpid())
	}
	unlock()
	unlock2, err := LockDir(dir)
	if err != nil {
		t.Fatalf("LockDir after unlock: %v", err)
	}
	unlock2()
	// a lock path that is not a regular file (a symlink) is neither
	// followed nor removed
	dir = t.TempDir()
	target := filepath.Join(dir, "target")
	if err := os.WriteFile(target, []byte("999999999\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(target, filepath.Join(dir, LockName)); err != nil {
		t.Fatal(err)
	}
	if _, err := LockDir(dir); err == nil {
		t.Errorf("symlinked lock accepted")
	}
	if fi, err := os.Lstat(filepath.Join(dir, LockName)); err != nil || fi.Mode()&os.ModeSymlink == 0 {
		t.Errorf("symlinked lock removed or replaced: %v", err)
	}
}
