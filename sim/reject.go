package sim

import "strings"

// Rejection reasons: the fixed vocabulary of Record.RejectedReason (the
// Parquet column rejected_reason), so that rejections can be grouped; the
// specifics (lengths, limits, the pool) are in Record.RejectedDetail.
const (
	// RejectTooLong: the request can never run on its pool's instances:
	// L_in + L_out above the engine's max model length, or its largest KV
	// footprint above an instance's KV cache.
	RejectTooLong = "too_long"
	// RejectMisrouted: L_in + L_out above the max context of the pool the
	// router chose, and no retry left (router.retry_delay_s 0, or no pool
	// with a larger max context).
	RejectMisrouted = "misrouted"
	// RejectQueueFull: the pool's waiting line was at its queue_limit. It
	// is a rejection for lack of capacity: it counts as overload.
	RejectQueueFull = "queue_full"
	// RejectInvalid: a length below 1 token (sources are checked, so only
	// a custom Source can cause it).
	RejectInvalid = "invalid"
)

// RejectReasons lists the vocabulary of Record.RejectedReason.
func RejectReasons() []string {
	return []string{RejectTooLong, RejectMisrouted, RejectQueueFull, RejectInvalid}
}

// engineRejectReason maps an engine's rejection message (engine.Result's
// Reason) to the vocabulary: lengths below 1 are invalid, everything else
// the engine refuses can never fit its instance.
func engineRejectReason(msg string) string {
	if strings.HasPrefix(msg, "input length") || strings.HasPrefix(msg, "output length") {
		return RejectInvalid
	}
	return RejectTooLong
}
