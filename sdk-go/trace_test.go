package workflow

import (
	"context"
	"encoding/json"
	"testing"
	"time"
)

func TestAClaimsTraceContextReachesTheHandlerAndItsDerivedContexts(t *testing.T) {
	const tp = "00-4bf92f3577b34da6a3ce929d0e0e4736-00f067aa0ba902b7-01"
	seen := make(chan [3]string, 2)
	RegisterWorkflow("t-trace", func(ctx *WorkflowContext, _ json.RawMessage) error {
		derived, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		tc, ok := TraceContextFrom(derived)
		if !ok {
			tc.Traceparent = "(none)"
		}
		seen <- [3]string{ctx.RunID, ctx.Traceparent, tc.Traceparent + "|" + tc.Tracestate}
		return nil
	})
	// The claim as the server sends it: JSON with the run's traceparent, and one without.
	answer := `{"claims":[{"runId":"traced","token":1,"workflow":"t-trace","payload":{},"attempt":1,"maxAttempts":3,"claimedAt":1,"leaseMs":30000,"steps":[],"traceparent":"` + tp + `","tracestate":"k=v"},` +
		`{"runId":"plain","token":1,"workflow":"t-trace","payload":{},"attempt":1,"maxAttempts":3,"claimedAt":1,"leaseMs":30000,"steps":[]}]}`
	stop := runOnClaims(t, answer)
	defer stop()
	got := map[string][2]string{}
	for len(got) < 2 {
		select {
		case s := <-seen:
			got[s[0]] = [2]string{s[1], s[2]}
		case <-time.After(5 * time.Second):
			t.Fatalf("handlers ran for %v only", got)
		}
	}
	if got["traced"] != [2]string{tp, tp + "|k=v"} {
		t.Fatalf("traced run saw %v", got["traced"])
	}
	if got["plain"] != [2]string{"", "(none)|"} {
		t.Fatalf("plain run saw %v", got["plain"])
	}
	if _, ok := TraceContextFrom(context.Background()); ok {
		t.Fatal("a context outside any run has a trace context")
	}
}
