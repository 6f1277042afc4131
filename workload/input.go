package workload

import (
	"bytes"
	"fmt"
	"io"
	"os"
)

// Limits on the files fleetsim reads, so that a wrong input (/dev/zero, a
// binary file, a sparse file of zeros) ends in a clear error instead of
// unbounded memory. Trace files are read as a stream; the other inputs are
// small documents read whole.
const (
	// MaxTraceLineBytes bounds one line of a CSV trace, bytes (JSONL
	// traces allow maxJSONLLine, 16 MiB, for Mooncake's hash lists).
	MaxTraceLineBytes = 1 << 20
	// MaxTraceBytes bounds a trace file, bytes (64 GiB).
	MaxTraceBytes = 1 << 36
	// MaxCDFBytes bounds a CDF JSON file, bytes (16 MiB).
	MaxCDFBytes = 16 << 20
)

// StdinName is the file name that stands for standard input (--trace -).
const StdinName = "-"

// LimitError is an input that breaks a size limit: the whole file (Line
// 0) or one line of it.
type LimitError struct {
	File  string // name as given
	Line  int64  // the line without a newline within Limit bytes; 0: the whole file
	Limit int64  // bytes
	Size  int64  // the file's size when known before reading (a regular file), else 0
	NUL   bool   // the line read so far holds NUL bytes (a binary or sparse file)
}

func (e *LimitError) Error() string {
	hint := "is it the right file?"
	if e.NUL {
		hint = "it holds NUL bytes: a binary or sparse file?"
	}
	switch {
	case e.Line > 0:
		return fmt.Sprintf("line %d of %q has no newline within %d bytes, longer than the limit for one line (%s)", e.Line, e.File, e.Limit, hint)
	case e.Size > 0:
		return fmt.Sprintf("file %q is %d bytes, longer than the limit of %d bytes for this input (%s)", e.File, e.Size, e.Limit, hint)
	}
	return fmt.Sprintf("file %q is longer than the limit of %d bytes for this input (%s)", e.File, e.Limit, hint)
}

// checkSize returns a *LimitError when f is a regular file larger than
// limit bytes, so that the error states the file's size before anything is
// read (a 70 GB sparse file is "larger than the limit", not "line 1 too
// long").
func checkSize(f io.Reader, name string, limit int64) error {
	if of, ok := f.(*os.File); ok {
		if fi, err := of.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > limit {
			return &LimitError{File: name, Limit: limit, Size: fi.Size()}
		}
	}
	return nil
}

// limitReader passes a stream through, failing with a *LimitError once the
// stream exceeds maxTotal bytes or a line exceeds maxLine bytes (0: no line
// limit).
type limitReader struct {
	r                 io.Reader
	name              string
	maxLine, maxTotal int64
	total, lineLen    int64
	line              int64 // 1-based line being read
	nul               bool  // the line being read holds a NUL byte
	err               error
}

func newLimitReader(r io.Reader, name string, maxLine, maxTotal int64) *limitReader {
	return &limitReader{r: r, name: name, maxLine: maxLine, maxTotal: maxTotal, line: 1}
}

func (l *limitReader) Read(p []byte) (int, error) {
	if l.err != nil {
		return 0, l.err
	}
	n, err := l.r.Read(p)
	l.total += int64(n)
	if l.total > l.maxTotal {
		l.err = &LimitError{File: l.name, Limit: l.maxTotal}
		return 0, l.err
	}
	if l.maxLine > 0 {
		b := p[:n]
		for {
			i := bytes.IndexByte(b, '\n')
			if i < 0 {
				l.lineLen += int64(len(b))
				break
			}
			if l.lineLen+int64(i) > l.maxLine {
				break
			}
			l.line++
			l.lineLen = 0
			l.nul = false
			b = b[i+1:]
		}
		if l.lineLen > l.maxLine || bytes.IndexByte(b, '\n') >= 0 {
			l.err = &LimitError{File: l.name, Line: l.line, Limit: l.maxLine, NUL: l.nul || bytes.IndexByte(p[:n], 0) >= 0}
			return 0, l.err
		}
		l.nul = l.nul || bytes.IndexByte(b, 0) >= 0
	}
	return n, err
}

// openInput opens name for reading; StdinName is standard input (which
// Close leaves open).
func openInput(name string) (io.ReadCloser, error) {
	if name == StdinName {
		return io.NopCloser(os.Stdin), nil
	}
	return os.Open(name)
}

// ReadFileLimit reads the whole of the file name (StdinName: standard input)
// once, failing with a *LimitError when it holds more than limit bytes
// (before reading more than limit+1 of them), so that /dev/zero or a huge
// file given by mistake does not fill memory.
func ReadFileLimit(name string, limit int64) ([]byte, error) {
	f, err := openInput(name)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := checkSize(f, name, limit); err != nil {
		return nil, err
	}
	data, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(data)) > limit {
		return nil, &LimitError{File: name, Limit: limit, NUL: bytes.IndexByte(data, 0) >= 0}
	}
	return data, nil
}
