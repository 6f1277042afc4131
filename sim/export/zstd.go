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

// newZstdCodec returns a codec for one writer.
func newZstdCodec() *zstdCodec {
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
