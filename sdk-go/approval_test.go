package workflow

import (
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func TestWaitForApprovalParksWithTheRequestThenReturnsTheDecisionOrATimeout(t *testing.T) {
	f := newFakeServer(t, nil)
	e, ctx := newTestExec(f, testClaim())
	if _, err := ctx.Step.WaitForApproval(ApprovalOpts{Timeout: time.Hour, NoSelfApproval: true}); !errors.Is(err, ErrParked) {
		t.Fatalf("first call: want ErrParked, got %v", err)
	}
	st := e.park.Steps[0]
	if st.Key != "waitForApproval" || st.Kind != "approval" || st.Status != "pending" || *st.WakeAfterMs != 3600000 || *e.park.WakeAfterMs != 3600000 {
		t.Fatalf("park: %+v", e.park)
	}
	var req map[string]any
	_ = json.Unmarshal(st.Value, &req)
	if req["selfApproval"] != false || req["timeout"].(float64) != 3600 {
		t.Fatalf("request: %s", st.Value)
	}

	_, done := newTestExec(f, testClaim(journalEntry{Key: "waitForApproval", Kind: "approval", Status: "done", Value: json.RawMessage(`{"value":{"n":1},"approver":"alice","approved":true}`)}))
	got, err := done.Step.WaitForApproval(ApprovalOpts{})
	if err != nil || !got.Approved || got.Approver != "alice" || string(got.Value) != `{"n":1}` {
		t.Fatalf("decided: %+v %v", got, err)
	}

	past := int64(1)
	_, late := newTestExec(f, testClaim(journalEntry{Key: "waitForApproval", Kind: "approval", Status: "pending", WakeAt: &past}))
	got, err = late.Step.WaitForApproval(ApprovalOpts{})
	if err != nil || got.Approved || got.Approver != "" {
		t.Fatalf("timed out: %+v %v", got, err)
	}
	saved := f.last("/api/worker/runs/run-1/steps")["steps"].([]any)[0].(map[string]any)
	if saved["kind"] != "approval" || saved["status"] != "done" || saved["value"].(map[string]any)["approved"] != false {
		t.Fatalf("timeout checkpoint: %v", saved)
	}
}
