package export

import (
	kzstd "github.com/klauspost/compress/zstd"
	"github.com/parquet-go/parquet-go/compress/zstd"
)

// zstdCodec is the compression of fleetsim's Parquet files: parquet-go's
// zstd codec at SpeedFastest (zstd.Codec{Level: zstd.SpeedFastest,
// Concurrency: 1}), with the same klauspost/compress encoder and options,
// so the same bytes, but one encoder kept for the writer's life. parquet-go
// keeps its encoders in a sync.Pool, which garbage collections empty; the
// first page compressed after one then built a new encoder, allocating and
// clearing its tables and history again.
type zstdCodec struct {
	zstd.Codec // String, CompressionCodec and Decode
	enc        *kzstd.Encoder
}

// zstdEncoders holds the encoders of closed writers (zstdCodec.release) for
// later ones: an encoder's first page over 128 KiB allocates its 16 MiB
// history (an 8 MiB window and as much again), which a process writing file
// after file (a sweep, a benchmark) then does once, not per file. EncodeAll's
// output does not depend on what the encoder compressed before (parquet-go
// already reuses one for every page of a file); the tests compare files
// written by reused encoders with parquet-go's.
var zstdEncoders = make(chan *kzstd.Encoder, 2)

// newZstdCodec returns a codec for one writer.
func newZstdCodec() *zstdCodec {
	select {
	case enc := <-zstdEncoders:
		return &zstdCodec{Codec: zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}, enc: enc}
	default:
	}
	enc, err := kzstd.NewWriter(nil,
		// The options of parquet-go's zstd.Codec.Encode.
		kzstd.WithEncoderConcurrency(1),
		kzstd.WithEncoderLevel(zstd.SpeedFastest),
		kzstd.WithZeroFrames(true),
		kzstd.WithEncoderCRC(false),
	)
	if err != nil { // only for invalid options
		panic(err)
	}
	return &zstdCodec{Codec: zstd.Codec{Level: zstd.SpeedFastest, Concurrency: 1}, enc: enc}
}

// Encode compresses src into dst (reusing its storage) as one zstd frame.
func (c *zstdCodec) Encode(dst, src []byte) ([]byte, error) {
	return c.enc.EncodeAll(src, dst[:0]), nil
}

// release hands c's encoder to a later codec; c is not used after.
func (c *zstdCodec) release() {
	select {
	case zstdEncoders <- c.enc:
	default:
	}
	c.enc = nil
}
