package workflow

import (
	"context"
	"encoding/json"
	"errors"
	"sync"
	"testing"
	"time"
)

var registerOnce sync.Once

// Test workflows, one per outcome.
func registerTestWorkflows() {
	registerOnce.Do(func() {
		RegisterWorkflow("t-ok", func(ctx *WorkflowContext, raw json.RawMessage) error {
			var p struct {
				OrderID string `json:"orderId"`
			}
			if err := json.Unmarshal(raw, &p); err != nil {
				return ctx.Fail(err)
			}
			ctx.Logger.Info("order %s", p.OrderID)
			return ctx.Step.Run("fulfill", nil, func() (any, error) { return p.OrderID, nil })
		}, WithMaxAttempts(5), WithGroup("go"))
		RegisterWorkflow("t-bail", func(ctx *WorkflowContext, _ json.RawMessage) error { return ctx.Bail("not needed") })
		RegisterWorkflow("t-fail", func(ctx *WorkflowContext, _ json.RawMessage) error { return ctx.Fail(errors.New("bad order")) })
		RegisterWorkflow("t-retry", func(ctx *WorkflowContext, _ json.RawMessage) error { return errors.New("flaky") })
		RegisterWorkflow("t-noretry", func(ctx *WorkflowContext, _ json.RawMessage) error {
			return ctx.Step.Run("s", nil, func() (any, error) { return nil, errors.New("permanent") }, StepRunOpts{NoRetry: true})
		})
		RegisterWorkflow("t-park", func(ctx *WorkflowContext, _ json.RawMessage) error {
			if err := ctx.Step.Sleep("nap", time.Hour); err != nil {
				return err
			}
			return nil
		})
		RegisterWorkflow("t-slow", func(ctx *WorkflowContext, _ json.RawMessage) error {
			time.Sleep(300 * time.Millisecond)
			return nil
		}, WithSchedule("0 3 * * *"))
	})
}

func TestWorkerRunsClaimsAndReportsEachOutcome(t *testing.T) {
	registerTestWorkflows()
	var mu sync.Mutex
	queue := []string{"t-ok", "t-bail", "t-fail", "t-retry", "t-noretry", "t-park"}
	finished := map[string]map[string]any{}
	done := make(chan struct{})
	f := newFakeServer(t, func(path string, body map[string]any) (int, any) {
		mu.Lock()
		defer mu.Unlock()
		switch {
		case path == "/api/worker/claim":
			if len(queue) == 0 {
				time.Sleep(20 * time.Millisecond)
				return 200, map[string]any{"claims": []any{}}
			}
			wf := queue[0]
			queue = queue[1:]
			c := testClaim()
			c.RunID, c.Workflow = wf, wf
			return 200, map[string]any{"claims": []claim{c}}
		case len(path) > 16 && (path[len(path)-7:] == "/finish" || path[len(path)-5:] == "/park"):
			finished[path] = body
			if len(finished) == 6 {
				close(done)
			}
		}
		return 200, map[string]any{}
	})
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() {
		result <- NewWorker(f.client(), WorkerOptions{Concurrency: 4, PollWait: 50 * time.Millisecond}).Run(ctx)
	}()
	select {
	case <-done:
	case <-time.After(5 * time.Second):
		t.Fatalf("not every claim finished: %v", finished)
	}
	cancel()
	if err := <-result; err != nil {
		t.Fatal(err)
	}
	reg := f.last("/api/worker/workflows")["workflows"].([]any)
	if len(reg) < 7 {
		t.Fatalf("registered %v", reg)
	}
	for _, w := range reg {
		m := w.(map[string]any)
		if m["name"] == "t-ok" && (m["maxAttempts"].(float64) != 5 || m["group"] != "go") {
			t.Fatalf("t-ok registered as %v", m)
		}
		if m["name"] == "t-slow" && m["schedule"] != "0 3 * * *" {
			t.Fatalf("t-slow registered as %v", m)
		}
	}
	want := map[string]string{"t-ok": "succeeded", "t-bail": "cancelled", "t-fail": "failed", "t-retry": "retry", "t-noretry": "failed"}
	for wf, outcome := range want {
		b := finished["/api/worker/runs/"+wf+"/finish"]
		if b == nil || b["outcome"] != outcome || b["token"].(float64) != 7 {
			t.Fatalf("%s finished with %v, want %s", wf, b, outcome)
		}
	}
	if msg := finished["/api/worker/runs/t-fail/finish"]["error"].(map[string]any)["message"]; msg != "bad order" {
		t.Fatalf("fail message %v", msg)
	}
	if r := finished["/api/worker/runs/t-bail/finish"]["reason"]; r != "not needed" {
		t.Fatalf("bail reason %v", r)
	}
	park := finished["/api/worker/runs/t-park/park"]
	if park == nil || park["wakeAfterMs"].(float64) != 3_600_000 {
		t.Fatalf("park %v", park)
	}
	logs := f.last("/api/worker/runs/t-ok/logs")["lines"].([]any)[0].(map[string]any)
	if logs["message"] != "order o1" {
		t.Fatalf("logs %v", logs)
	}
}

func TestCancellationDrainsRunningHandlersWhileHeartbeating(t *testing.T) {
	registerTestWorkflows()
	var mu sync.Mutex
	claimed := false
	beats := 0
	f := newFakeServer(t, func(path string, body map[string]any) (int, any) {
		mu.Lock()
		defer mu.Unlock()
		switch path {
		case "/api/worker/claim":
			if claimed {
				time.Sleep(10 * time.Millisecond)
				return 200, map[string]any{"claims": []any{}}
			}
			claimed = true
			c := testClaim()
			c.RunID, c.Workflow = "slow-1", "t-slow"
			return 200, map[string]any{"claims": []claim{c}}
		case "/api/worker/heartbeat":
			beats++
			return 200, map[string]any{"lost": []string{}}
		}
		return 200, map[string]any{}
	})
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() {
		result <- NewWorker(f.client(), WorkerOptions{Concurrency: 2, PollWait: 20 * time.Millisecond, Lease: 150 * time.Millisecond}).Run(ctx)
	}()
	time.Sleep(80 * time.Millisecond)
	cancel()
	t0 := time.Now()
	if err := <-result; err != nil {
		t.Fatal(err)
	}
	if time.Since(t0) < 100*time.Millisecond {
		t.Fatal("Run returned before the running handler finished")
	}
	if b := f.last("/api/worker/runs/slow-1/finish"); b["outcome"] != "succeeded" {
		t.Fatalf("finish %v", b)
	}
	mu.Lock()
	defer mu.Unlock()
	if beats == 0 {
		t.Fatal("no heartbeat while draining")
	}
}

func TestALostLeaseCancelsTheHandlersContextAndWritesNothingMore(t *testing.T) {
	registerTestWorkflows()
	f := newFakeServer(t, func(path string, _ map[string]any) (int, any) {
		return 200, map[string]any{"lost": []string{"run-1"}}
	})
	w := NewWorker(f.client(), WorkerOptions{Lease: 90 * time.Millisecond})
	e := newExecution(context.Background(), w.outbox, testClaim(), time.Second)
	w.active["run-1"] = e
	stop, done := make(chan struct{}), make(chan struct{})
	go w.heartbeats(stop, done)
	select {
	case <-e.ctx.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("the lease loss did not cancel the claim")
	}
	close(stop)
	<-done
	if err := (&Steps{exec: e}).Run("x", nil, func() (any, error) { return 1, nil }); !errors.Is(err, ErrLeaseLost) {
		t.Fatalf("err=%v", err)
	}
}
