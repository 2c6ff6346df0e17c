package workflow

import (
	"encoding/json"
	"testing"
	"time"
)

func TestAClaimsDueAtAndClaimedAtReachTheHandler(t *testing.T) {
	type times struct{ claimed, due time.Time }
	seen := make(chan struct {
		id string
		times
	}, 2)
	RegisterWorkflow("t-due", func(ctx *WorkflowContext, _ json.RawMessage) error {
		seen <- struct {
			id string
			times
		}{ctx.RunID, times{ctx.ClaimedAt, ctx.DueAt}}
		return nil
	})
	// One claim as the server sends it (dueAt before claimedAt), one from a server without dueAt.
	answer := `{"claims":[{"runId":"waited","token":1,"workflow":"t-due","payload":{},"attempt":1,"maxAttempts":3,"claimedAt":1796111238069,"dueAt":1796111237912,"leaseMs":30000,"steps":[]},` +
		`{"runId":"old-server","token":1,"workflow":"t-due","payload":{},"attempt":1,"maxAttempts":3,"claimedAt":1796111238069,"leaseMs":30000,"steps":[]}]}`
	stop := runOnClaims(t, answer)
	defer stop()
	got := map[string]times{}
	for len(got) < 2 {
		select {
		case s := <-seen:
			got[s.id] = s.times
		case <-time.After(5 * time.Second):
			t.Fatalf("handlers ran for %v only", got)
		}
	}
	w := got["waited"]
	if w.claimed.UnixMilli() != 1796111238069 || w.due.UnixMilli() != 1796111237912 {
		t.Fatalf("waited run saw claimedAt %v dueAt %v", w.claimed, w.due)
	}
	if wait := w.claimed.Sub(w.due); wait != 157*time.Millisecond {
		t.Fatalf("queue wait %v, want 157ms", wait)
	}
	o := got["old-server"]
	if !o.due.IsZero() || o.claimed.UnixMilli() != 1796111238069 {
		t.Fatalf("run without dueAt saw claimedAt %v dueAt %v (want a zero DueAt)", o.claimed, o.due)
	}
}
