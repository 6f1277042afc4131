package main

import (
	"errors"
	"fmt"
	"io"
	"time"

	"github.com/fleetsim/fleetsim/router/compress"
	"github.com/spf13/pflag"
)

func init() {
	register("compress", "compress a prompt FILE to a token budget with the extractive C&R compressor", runCompress)
}

// compressReport is the --format json output of `fleetsim compress`.
type compressReport struct {
	File           string  `json:"file"`
	Budget         int     `json:"budget_tokens"`
	OriginalTokens int     `json:"original_tokens"`
	Tokens         int     `json:"compressed_tokens"`
	Reduction      float64 `json:"token_reduction"` // 1 − compressed/original
	Sentences      int     `json:"sentences"`
	Kept           int     `json:"kept_sentences"`
	Compressed     bool    `json:"compressed"` // false: the prompt already fit
	ROUGELRecall   float64 `json:"rouge_l_recall"`
	TFIDFCosine    float64 `json:"tfidf_cosine"`
	CompressMS     float64 `json:"compress_ms"` // wall time of the compression alone, ms
	Text           string  `json:"text"`        // the compressed prompt (the --format text output)
}

func compressUsage(w io.Writer, fs *pflag.FlagSet) {
	fmt.Fprint(w, `Usage: fleetsim compress --budget N [flags] FILE

Compresses the prompt in FILE ("-" reads stdin) to at most N tokens with the
extractive compressor of compress-and-route (FleetOpt §5.2): sentences scored
by TextRank, position, TF-IDF and novelty; the first 3 and last 2 sentences
are always kept; the kept sentences are printed in their original order.
Tokens are counted with the heuristic documented in docs/router.md.

With --format json it prints the token counts, the fidelity metrics (ROUGE-L
recall, TF-IDF cosine), the compression time and the compressed text.
Bad input (including a budget smaller than the always-kept sentences) exits
with status 2.

Flags:
`)
	fmt.Fprint(w, fs.FlagUsagesWrapped(100))
}

func runCompress(args []string, stdout, stderr io.Writer) error {
	fs := pflag.NewFlagSet("compress", pflag.ContinueOnError)
	fs.SortFlags = false
	budget := fs.Int("budget", 0, "token budget `N` of the compressed prompt (> 0), e.g. T_c = B_short − L_out")
	format := fs.String("format", "text", "stdout: text (the compressed prompt) or json (metrics, timing and the text)")
	if help, err := parseFlags("compress", fs, args, stdout, compressUsage, true); help || err != nil {
		return err
	}
	if *format != "text" && *format != "json" {
		return badInput("--format %q: allowed: text, json", *format)
	}
	if *budget <= 0 {
		return badInput("--budget %d: must be a token count > 0", *budget)
	}
	if fs.NArg() != 1 {
		return badInput("want exactly one FILE argument, got %d (run 'fleetsim compress --help')", fs.NArg())
	}
	name := fs.Arg(0)
	data, err := readInput("FILE", name, maxPromptBytes)
	if err != nil {
		return badInput("%s", err)
	}
	text := string(data)
	var c compress.Compressor
	t0 := time.Now()
	res, err := c.Compress(text, *budget)
	elapsed := time.Since(t0)
	if err != nil {
		var be *compress.BudgetError
		if errors.As(err, &be) {
			return badInput("--budget %d: too small: the first %d and last %d sentences alone need %d tokens",
				*budget, compress.KeepFirst, compress.KeepLast, be.Need)
		}
		return err
	}
	if *format == "text" {
		_, err := io.WriteString(stdout, res.Text)
		if err == nil && len(res.Text) > 0 && res.Text[len(res.Text)-1] != '\n' {
			_, err = io.WriteString(stdout, "\n")
		}
		return err
	}
	f := compress.Measure(text, res.Text)
	rep := compressReport{
		File: name, Budget: *budget, OriginalTokens: res.OriginalTokens, Tokens: res.Tokens,
		Sentences: res.Sentences, Kept: res.Kept, Compressed: res.Compressed,
		ROUGELRecall: f.ROUGELRecall, TFIDFCosine: f.TFIDFCosine,
		CompressMS: float64(elapsed.Nanoseconds()) / 1e6,
		Text:       res.Text,
	}
	if res.OriginalTokens > 0 {
		rep.Reduction = 1 - float64(res.Tokens)/float64(res.OriginalTokens)
	}
	return writeJSON(stdout, rep)
}
