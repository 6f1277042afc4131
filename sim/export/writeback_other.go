//go:build !linux

package export

import "os"

func writeback(*os.File, int64, int64) {}
