package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

func newTestExec(f *fakeServer, c claim) (*execution, *WorkflowContext) {
	e := newExecution(context.Background(), newOutbox(f.client()), c, 30*time.Second)
	ctx := &WorkflowContext{Context: e.ctx, RunID: c.RunID, exec: e}
	ctx.Step = &Steps{exec: e}
	ctx.Logger = &Logger{exec: e}
	return e, ctx
}

func TestRunReplaysACheckpointWithoutCallingTheBody(t *testing.T) {
	f := newFakeServer(t, nil)
	_, ctx := newTestExec(f, testClaim(journalEntry{Key: "charge", Kind: "step", Status: "done", Value: json.RawMessage(`{"paid":42}`)}))
	var out struct{ Paid int }
	calls := 0
	err := ctx.Step.Run("charge", &out, func() (any, error) { calls++; return nil, nil })
	if err != nil || calls != 0 || out.Paid != 42 {
		t.Fatalf("err=%v calls=%d out=%+v", err, calls, out)
	}
	if len(f.paths("")) != 0 {
		t.Fatalf("a replayed step wrote: %v", f.paths(""))
	}
}

func TestRunCheckpointsNewStepsUnderRepeatedKeys(t *testing.T) {
	f := newFakeServer(t, nil)
	_, ctx := newTestExec(f, testClaim(journalEntry{Key: "double", Kind: "step", Status: "done", Value: json.RawMessage(`2`)}))
	var a, b int
	if err := ctx.Step.Run("double", &a, func() (any, error) { return 99, nil }); err != nil {
		t.Fatal(err)
	}
	if err := ctx.Step.Run("double", &b, func() (any, error) { return 4, nil }); err != nil {
		t.Fatal(err)
	}
	if a != 2 || b != 4 {
		t.Fatalf("a=%d b=%d", a, b)
	}
	body := f.last("/api/worker/runs/run-1/steps")
	step := body["steps"].([]any)[0].(map[string]any)
	if body["token"].(float64) != 7 || step["key"] != "double#2" || step["kind"] != "step" || step["status"] != "done" || step["value"].(float64) != 4 || step["position"].(float64) != 1 || step["attempts"].(float64) != 1 {
		t.Fatalf("unexpected write %v", body)
	}
	if f.requests[0].Auth != "Bearer tok" {
		t.Fatalf("auth header %q", f.requests[0].Auth)
	}
}

func TestRunRetriesTheBodyWithBackoff(t *testing.T) {
	f := newFakeServer(t, nil)
	_, ctx := newTestExec(f, testClaim())
	tries := 0
	opts := StepRunOpts{Retries: 2}
	opts.Backoff.Base = time.Millisecond
	opts.Backoff.Max = 5 * time.Millisecond
	var out string
	err := ctx.Step.Run("flaky", &out, func() (any, error) {
		tries++
		if tries < 3 {
			return nil, errors.New("try again")
		}
		return "ok", nil
	}, opts)
	if err != nil || tries != 3 || out != "ok" {
		t.Fatalf("err=%v tries=%d out=%q", err, tries, out)
	}
	step := f.last("/api/worker/runs/run-1/steps")["steps"].([]any)[0].(map[string]any)
	if step["attempts"].(float64) != 3 {
		t.Fatalf("attempts recorded: %v", step["attempts"])
	}
	// Retries spent: the error reaches the handler.
	tries = 0
	err = ctx.Step.Run("broken", nil, func() (any, error) { tries++; return nil, errors.New("down") }, opts)
	if err == nil || err.Error() != "down" || tries != 3 {
		t.Fatalf("err=%v tries=%d", err, tries)
	}
}

func TestRunWithALongRetryDelayParksTheRun(t *testing.T) {
	f := newFakeServer(t, nil)
	e, ctx := newTestExec(f, testClaim())
	opts := StepRunOpts{Retries: 1}
	opts.Backoff.Base = time.Hour
	opts.Backoff.Max = time.Hour
	err := ctx.Step.Run("slow", nil, func() (any, error) { return nil, errors.New("later") }, opts)
	if !errors.Is(err, ErrParked) {
		t.Fatalf("err=%v", err)
	}
	if e.park == nil || len(e.park.Steps) != 1 || e.park.Steps[0].Status != "pending" || e.park.Steps[0].Attempts != 1 || *e.park.WakeAfterMs < 2_800_000 {
		t.Fatalf("park %+v", e.park)
	}
	// After parking, every further step call answers ErrParked without running.
	if err := ctx.Step.Run("after", nil, func() (any, error) { t.Fatal("ran after park"); return nil, nil }); !errors.Is(err, ErrParked) {
		t.Fatalf("err=%v", err)
	}
}

func TestSleepParksLongSleepsAndWaitsShortOnesInline(t *testing.T) {
	f := newFakeServer(t, nil)
	e, ctx := newTestExec(f, testClaim())
	t0 := time.Now()
	if err := ctx.Step.Sleep("short", 30*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if time.Since(t0) < 30*time.Millisecond {
		t.Fatal("short sleep did not wait")
	}
	if p := f.paths("/api/worker/runs/run-1"); len(p) != 2 {
		t.Fatalf("short sleep writes pending then done, got %v", p)
	}
	if err := ctx.Step.Sleep("wait-before-reminder", 24*time.Hour); !errors.Is(err, ErrParked) {
		t.Fatalf("err=%v", err)
	}
	s := e.park.Steps[0]
	if s.Key != "wait-before-reminder" || s.Kind != "sleep" || *s.WakeAfterMs != 86_400_000 || *e.park.WakeAfterMs != 86_400_000 {
		t.Fatalf("park %+v", e.park)
	}
}

func TestSleepReplay(t *testing.T) {
	f := newFakeServer(t, nil)
	past := time.Now().UnixMilli() - 10
	future := time.Now().UnixMilli() + 3_600_000
	e, ctx := newTestExec(f, testClaim(
		journalEntry{Key: "a", Kind: "sleep", Status: "done"},
		journalEntry{Key: "b", Kind: "sleep", Status: "pending", WakeAt: &past},
		journalEntry{Key: "c", Kind: "sleep", Status: "pending", WakeAt: &future},
	))
	for _, k := range []string{"a", "b"} {
		if err := ctx.Step.Sleep(k, time.Hour); err != nil {
			t.Fatalf("%s: %v", k, err)
		}
	}
	if err := ctx.Step.Sleep("c", time.Hour); !errors.Is(err, ErrParked) {
		t.Fatalf("c: %v", err)
	}
	if len(e.park.Steps) != 0 || *e.park.WakeAfterMs > 3_600_000 || *e.park.WakeAfterMs < 3_500_000 {
		t.Fatalf("re-park keeps the stored wake time: %+v", e.park)
	}
}

type approvalDecision struct {
	Approved bool   `json:"approved"`
	By       string `json:"by"`
}

func TestWaitForParksThenDecodesTheSignalOrNilOnTimeout(t *testing.T) {
	f := newFakeServer(t, nil)
	e, ctx := newTestExec(f, testClaim())
	var d *approvalDecision
	if err := ctx.Step.WaitFor("approval:order-1", &d, 7*24*time.Hour); !errors.Is(err, ErrParked) {
		t.Fatalf("err=%v", err)
	}
	if s := e.park.Steps[0]; s.Kind != "wait" || s.Event != "approval:order-1" || *s.WakeAfterMs != 7*86_400_000 {
		t.Fatalf("park %+v", e.park)
	}
	past := time.Now().UnixMilli() - 1
	_, ctx = newTestExec(f, testClaim(
		journalEntry{Key: "approval:order-1", Kind: "wait", Status: "done", Value: json.RawMessage(`{"approved":true,"by":"ann"}`)},
		journalEntry{Key: "approval:order-2", Kind: "wait", Status: "pending", WakeAt: &past},
	))
	if err := ctx.Step.WaitFor("approval:order-1", &d, time.Hour); err != nil || d == nil || !d.Approved || d.By != "ann" {
		t.Fatalf("err=%v d=%+v", err, d)
	}
	if err := ctx.Step.WaitFor("approval:order-2", &d, time.Hour); err != nil || d != nil {
		t.Fatalf("timeout: err=%v d=%+v", err, d)
	}
	step := f.last("/api/worker/runs/run-1/steps")["steps"].([]any)[0].(map[string]any)
	if step["key"] != "approval:order-2" || step["status"] != "done" {
		t.Fatalf("timeout recorded as %v", step)
	}
}

func TestAJournalOfAnotherKindIsNonDeterminism(t *testing.T) {
	f := newFakeServer(t, nil)
	_, ctx := newTestExec(f, testClaim(journalEntry{Key: "x", Kind: "sleep", Status: "done"}))
	err := ctx.Step.Run("x", nil, func() (any, error) { return nil, nil })
	var nd *NonDeterminismError
	if !errors.As(err, &nd) || nd.Recorded != "sleep" || nd.Requested != "step" {
		t.Fatalf("err=%v", err)
	}
}

func TestALeaseLostAnswerStopsTheClaim(t *testing.T) {
	f := newFakeServer(t, func(path string, _ map[string]any) (int, any) {
		return 409, map[string]any{"error": map[string]any{"code": "LEASE_LOST", "message": "lost the lease"}}
	})
	e, ctx := newTestExec(f, testClaim())
	err := ctx.Step.Run("charge", nil, func() (any, error) { return 1, nil })
	if !errors.Is(err, ErrLeaseLost) || !e.isLost() || ctx.Err() == nil {
		t.Fatalf("err=%v lost=%v ctxErr=%v", err, e.isLost(), ctx.Err())
	}
}

func TestAWriteTheDatabaseRefusedIsRetried(t *testing.T) {
	calls := 0
	f := newFakeServer(t, func(string, map[string]any) (int, any) {
		calls++
		if calls == 1 {
			return 503, map[string]any{"error": map[string]any{"code": "STORAGE_ERROR", "message": "database is locked"}}
		}
		return 200, map[string]any{"saved": []string{"s"}}
	})
	_, ctx := newTestExec(f, testClaim())
	if err := ctx.Step.Run("s", nil, func() (any, error) { return 1, nil }); err != nil || calls != 2 {
		t.Fatalf("err=%v calls=%d", err, calls)
	}
}
