package catalog

import (
	"strings"
	"testing"
)

// Review of #20 item 6: like an unknown torch_dtype, weights were costed at
// torch_dtype's 2 bytes when quantization_config named another method (an
// AWQ or GPTQ 4-bit model is ~0.5 byte per weight), and transformers >= 4.56
// writes the dtype as "dtype", which was ignored (a float32 model costed at
// 2 bytes). "dtype" is read as torch_dtype; another quant_method is refused.
func TestHFConfigDTypeAndQuant(t *testing.T) {
	edit := llamaConfigEdit(t)
	m, err := ParseHFConfig("x", edit(`"torch_dtype": "bfloat16"`, `"dtype": "float32"`))
	if err != nil || m.WeightBytes != 4*m.Params {
		t.Errorf(`"dtype": "float32": %v bytes for %v params (%v), want 4 per parameter`, m.WeightBytes, m.Params, err)
	}
	for _, tc := range []struct {
		data []byte
		want string
	}{
		{edit(`"torch_dtype": "bfloat16"`, `"torch_dtype": "float16", "quantization_config": {"quant_method": "awq", "bits": 4}`), `quantization_config.quant_method = "awq": unknown (allowed: fp8`},
		{edit(`"torch_dtype": "bfloat16"`, `"torch_dtype": "bfloat16", "dtype": "float32"`), `torch_dtype = "bfloat16" and dtype = "float32" differ`},
	} {
		_, err := ParseHFConfig("x", tc.data)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("error %v, want one line containing %q", err, tc.want)
		}
	}
	// both keys agreeing, and fp8, stay accepted
	if m, err := ParseHFConfig("x", edit(`"torch_dtype": "bfloat16"`, `"torch_dtype": "bfloat16", "dtype": "bfloat16", "quantization_config": {"quant_method": "FP8"}`)); err != nil || m.WeightBytes != m.Params {
		t.Errorf("bfloat16 twice, fp8: %v %v", m.WeightBytes, err)
	}
}
