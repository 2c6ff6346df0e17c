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

func TestGetResumeURLsAsksForTheNextApprovalKeyAndStopsOnALostLease(t *testing.T) {
	lost := false
	f := newFakeServer(t, func(path string, body map[string]any) (int, any) {
		if lost {
			return 409, map[string]any{"error": map[string]any{"code": "LEASE_LOST", "message": "gone"}}
		}
		return 200, map[string]any{"approvalPage": "http://x/approve/run-1/" + body["key"].(string), "resume": "http://x/r", "cancel": "http://x/c"}
	})
	done := journalEntry{Key: "waitForApproval", Kind: "approval", Status: "done", Value: json.RawMessage(`{"value":null,"approver":"a","approved":true}`)}
	_, ctx := newTestExec(f, testClaim(done))
	links, err := ctx.Step.GetResumeURLs("")
	if err != nil || links.ApprovalPage != "http://x/approve/run-1/waitForApproval" || links.Resume != "http://x/r" || links.Cancel != "http://x/c" {
		t.Fatalf("first approval's links: %+v %v", links, err)
	}
	req := f.last("/api/worker/runs/run-1/resume-urls")
	if req["token"].(float64) != 7 || req["key"] != "waitForApproval" {
		t.Fatalf("request: %v", req)
	}
	if _, ok := req["approver"]; ok {
		t.Fatalf("no approver was given: %v", req)
	}
	// Asking does not allocate the key: the approval itself still gets "waitForApproval".
	if _, err := ctx.Step.WaitForApproval(ApprovalOpts{}); err != nil {
		t.Fatalf("replayed approval: %v", err)
	}
	if _, err := ctx.Step.GetResumeURLs("bob"); err != nil {
		t.Fatal(err)
	}
	req = f.last("/api/worker/runs/run-1/resume-urls")
	if req["key"] != "waitForApproval#2" || req["approver"] != "bob" {
		t.Fatalf("second approval's request: %v", req)
	}
	lost = true
	if _, err := ctx.Step.GetResumeURLs(""); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("lost lease: want ErrLeaseLost, got %v", err)
	}
}
