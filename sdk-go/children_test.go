package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestChildParksWithTheChildThenReturnsItsResultOrError(t *testing.T) {
	f := newFakeServer(t, nil)
	e, ctx := newTestExec(f, testClaim())
	err := ctx.Step.Child("charge", "charge-card", map[string]int{"cents": 4200}, nil, ChildOpts{ConcurrencyKey: "cards", ConcurrencyLimit: 1})
	if !errors.Is(err, ErrParked) {
		t.Fatalf("first call: want ErrParked, got %v", err)
	}
	if e.park == nil || !e.park.AwaitChildren || len(e.park.Children) != 1 {
		t.Fatalf("park request: %+v", e.park)
	}
	c := e.park.Children[0]
	if c.Key != "charge" || c.Workflow != "charge-card" || string(c.Payload) != `{"cents":4200}` || c.Concurrency == nil || c.Concurrency.Limit != 1 {
		t.Fatalf("child: %+v", c)
	}

	_, done := newTestExec(f, testClaim(journalEntry{Key: "charge", Kind: "task", Status: "done", Value: json.RawMessage(`{"id":"ch_1"}`)}))
	var out struct{ ID string }
	if err := done.Step.Child("charge", "charge-card", nil, &out); err != nil || out.ID != "ch_1" {
		t.Fatalf("done child: err=%v out=%+v", err, out)
	}

	_, failed := newTestExec(f, testClaim(journalEntry{Key: "charge", Kind: "task", Status: "error", Error: json.RawMessage(`{"name":"Error","message":"declined","code":"DECLINED"}`), ChildID: strPtr("kid-1")}))
	err = failed.Step.Child("charge", "charge-card", nil, nil)
	var ce *ChildError
	var perm *permanentError
	if !errors.As(err, &ce) || ce.Code != "DECLINED" || ce.Message != "declined" || !errors.As(err, &perm) {
		t.Fatalf("failed child: want a permanent *ChildError, got %v", err)
	}
	if ce.ChildID != "kid-1" || string(ce.Result) != `{"name":"Error","message":"declined","code":"DECLINED"}` {
		t.Fatalf("failed child: want the child's id and serialized error, got %q %s", ce.ChildID, ce.Result)
	}

	pe, pending := newTestExec(f, testClaim(journalEntry{Key: "charge", Kind: "task", Status: "pending"}))
	if err := pending.Step.Child("charge", "charge-card", nil, nil); !errors.Is(err, ErrParked) {
		t.Fatalf("pending child: want ErrParked, got %v", err)
	}
	if !pe.park.AwaitChildren || len(pe.park.Children) != 0 {
		t.Fatalf("a pending child re-parks without creating another: %+v", pe.park)
	}
	if len(f.paths("")) != 0 {
		t.Fatalf("Child wrote directly: %v", f.paths(""))
	}
}

func TestSetResultIsTheRunsResultWhenTheHandlerSucceeds(t *testing.T) {
	registerResultOnce.Do(func() {
		RegisterWorkflow("t-result", func(ctx *WorkflowContext, _ json.RawMessage) error {
			if err := ctx.SetResult(make(chan int)); err == nil {
				return errors.New("a channel should not encode")
			}
			return ctx.SetResult(map[string]int{"doubled": 42})
		})
	})
	f := newFakeServer(t, nil)
	w := NewWorker(f.client(), WorkerOptions{})
	c := testClaim()
	c.Workflow = "t-result"
	w.execute(newExecution(context.Background(), w.outbox, c, time.Second))
	fin := f.last("/api/worker/runs/run-1/finish")
	if fin["outcome"] != "succeeded" || fin["result"].(map[string]any)["doubled"] != float64(42) {
		t.Fatalf("finish: %v", fin)
	}
}

var registerResultOnce sync.Once

func strPtr(s string) *string { return &s }

func TestTaskChildrenCarryTheirOptionsAndReplayByTarget(t *testing.T) {
	f := newFakeServer(t, nil)
	pe, fresh := newTestExec(f, testClaim())
	opts := ChildOpts{Priority: 3, Timeout: 1500 * time.Millisecond, CacheTTL: time.Minute}
	if err := fresh.Step.Task("extract", "extract", map[string]int{"n": 2}, nil, opts); !errors.Is(err, ErrParked) {
		t.Fatalf("a new task parks: %v", err)
	}
	got := pe.park.Children[0]
	if got.Task != "extract" || got.Workflow != "" || got.Priority != 3 || got.TimeoutMs != 1500 || got.CacheTTLMs != 60000 {
		t.Fatalf("task child write: %+v", got)
	}

	// The journal recorded a child of task "load" at this key: asking for "extract" is non-determinism.
	_, changed := newTestExec(f, testClaim(journalEntry{Key: "extract", Kind: "task", Status: "done", Value: json.RawMessage(`1`), Target: strPtr("load")}))
	err := changed.Step.Task("extract", "extract", nil, nil)
	var nd *NonDeterminismError
	if !errors.As(err, &nd) || nd.Key != "extract" || nd.Position != 0 || !strings.Contains(err.Error(), `task "load"`) {
		t.Fatalf("want a NonDeterminismError naming the recorded target, got %v", err)
	}

	_, same := newTestExec(f, testClaim(journalEntry{Key: "extract", Kind: "task", Status: "done", Value: json.RawMessage(`7`), Target: strPtr("extract")}))
	var out int
	if err := same.Step.Task("extract", "extract", nil, &out); err != nil || out != 7 {
		t.Fatalf("replayed task: err=%v out=%d", err, out)
	}
}
