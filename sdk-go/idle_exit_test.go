package workflow

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"
)

// longPollServer answers claims as the server does when nothing is runnable: after waiting
// the request's waitMs (at most 2 s here), an empty list. first, when set, is the first
// claim's answer. It records each claim's waitMs and when the finish of a run came.
type longPollServer struct {
	*fakeServer
	mu       sync.Mutex
	waits    []float64
	finished time.Time
}

func newLongPollServer(t *testing.T, first *claim) *longPollServer {
	s := &longPollServer{}
	served := first == nil
	s.fakeServer = newFakeServer(t, func(path string, body map[string]any) (int, any) {
		switch {
		case path == "/api/worker/claim":
			s.mu.Lock()
			ms, _ := body["waitMs"].(float64)
			s.waits = append(s.waits, ms)
			give := !served
			served = true
			s.mu.Unlock()
			if give {
				return 200, map[string]any{"claims": []claim{*first}}
			}
			if ms > 2_000 {
				ms = 2_000
			}
			time.Sleep(time.Duration(ms) * time.Millisecond)
			return 200, map[string]any{"claims": []any{}}
		case strings.HasSuffix(path, "/finish"):
			s.mu.Lock()
			s.finished = time.Now()
			s.mu.Unlock()
		}
		return 200, map[string]any{}
	})
	return s
}

// runUntilExit runs a worker until Run returns (or 5 s pass: then the test fails).
func runUntilExit(t *testing.T, w *Worker) (err error, took time.Duration) {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	result := make(chan error, 1)
	t0 := time.Now()
	go func() { result <- w.Run(ctx) }()
	select {
	case err := <-result:
		return err, time.Since(t0)
	case <-time.After(5 * time.Second):
		cancel()
		<-result
		t.Fatal("the worker did not exit within 5 s")
		return nil, 0
	}
}

func TestWithSluiceExitWhenIdleMsTheWorkerExitsWhenNoClaimComesWithinTheWindow(t *testing.T) {
	registerTestWorkflows()
	// Sluice sets it for a sluice.json worker command it runs as a scale-to-zero lane.
	t.Setenv("SLUICE_EXIT_WHEN_IDLE_MS", "300")
	s := newLongPollServer(t, nil)
	err, took := runUntilExit(t, NewWorker(s.client(), WorkerOptions{PollWait: 20 * time.Second}))
	if err != nil {
		t.Fatalf("Run returned %v, want nil (an idle exit is a clean exit)", err)
	}
	if took < 300*time.Millisecond {
		t.Fatalf("exited after %v, before its 300 ms idle window", took)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	// Its long-polls were cut to the window instead of the 20 s PollWait.
	if len(s.waits) == 0 || s.waits[0] > 300 || s.waits[0] < 1 {
		t.Fatalf("claim waits %v, want each within the 300 ms window", s.waits)
	}
}

func TestTheIdleWindowCountsFromTheEndOfTheLastRun(t *testing.T) {
	registerTestWorkflows()
	c := testClaim()
	c.RunID, c.Workflow = "slow-1", "t-slow" // its handler takes 300 ms
	s := newLongPollServer(t, &c)
	err, _ := runUntilExit(t, NewWorker(s.client(), WorkerOptions{PollWait: 20 * time.Second, ExitWhenIdle: 200 * time.Millisecond}))
	exited := time.Now()
	if err != nil {
		t.Fatal(err)
	}
	if b := s.last("/api/worker/runs/slow-1/finish"); b["outcome"] != "succeeded" {
		t.Fatalf("the running handler did not finish before the exit: %v", b)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if since := exited.Sub(s.finished); since < 200*time.Millisecond {
		t.Fatalf("exited %v after the run finished, within its 200 ms idle window", since)
	}
}

func TestABadSluiceExitWhenIdleMsIsRefusedBeforeRegistering(t *testing.T) {
	registerTestWorkflows()
	t.Setenv("SLUICE_EXIT_WHEN_IDLE_MS", "30s")
	s := newLongPollServer(t, nil)
	err, _ := runUntilExit(t, NewWorker(s.client(), WorkerOptions{}))
	if err == nil || !strings.Contains(err.Error(), `SLUICE_EXIT_WHEN_IDLE_MS must be a positive whole number of milliseconds`) || !strings.Contains(err.Error(), `"30s"`) {
		t.Fatalf("Run returned %v, want the bad setting named", err)
	}
	if p := s.paths(""); len(p) != 0 {
		t.Fatalf("requests were sent: %v", p)
	}
}

func TestANegativeExitWhenIdleKeepsTheWorkerRunningDespiteTheEnvironment(t *testing.T) {
	registerTestWorkflows()
	t.Setenv("SLUICE_EXIT_WHEN_IDLE_MS", "50")
	s := newLongPollServer(t, nil)
	ctx, cancel := context.WithCancel(context.Background())
	result := make(chan error, 1)
	go func() {
		result <- NewWorker(s.client(), WorkerOptions{PollWait: 20 * time.Millisecond, ExitWhenIdle: -1}).Run(ctx)
	}()
	select {
	case err := <-result:
		t.Fatalf("the worker exited (%v) although ExitWhenIdle is negative", err)
	case <-time.After(400 * time.Millisecond):
	}
	cancel()
	if err := <-result; err != nil {
		t.Fatal(err)
	}
}
