package workflow

import (
	"context"
	"strings"
	"testing"
	"time"
)

// claimWorkerID runs a worker until its first claim request and returns the workerId it sent.
func claimWorkerID(t *testing.T, opts WorkerOptions) string {
	registerTestWorkflows()
	ids := make(chan string, 1)
	f := newFakeServer(t, func(path string, body map[string]any) (int, any) {
		if path == "/api/worker/claim" {
			id, _ := body["workerId"].(string)
			select {
			case ids <- id:
			default:
			}
			time.Sleep(10 * time.Millisecond)
			return 200, map[string]any{"claims": []any{}}
		}
		return 200, map[string]any{}
	})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() {
		defer close(done)
		opts.PollWait = 50 * time.Millisecond
		_ = NewWorker(f.client(), opts).Run(ctx)
	}()
	defer func() { cancel(); <-done }()
	select {
	case id := <-ids:
		return id
	case <-time.After(5 * time.Second):
		t.Fatal("no claim request within 5 s")
		return ""
	}
}

func TestTheWorkerClaimsUnderSluiceWorkerIDWhenSet(t *testing.T) {
	// Sluice sets it for a sluice.json worker command and releases that id's claims when the process dies.
	t.Setenv("SLUICE_WORKER_ID", "cmd1:host:4242:2")
	if got := claimWorkerID(t, WorkerOptions{}); got != "cmd1:host:4242:2" {
		t.Fatalf("claimed as %q, want SLUICE_WORKER_ID", got)
	}
	// An explicit WorkerID still wins.
	if got := claimWorkerID(t, WorkerOptions{WorkerID: "mine"}); got != "mine" {
		t.Fatalf("claimed as %q, want the WorkerOptions.WorkerID", got)
	}
}

func TestWithoutSluiceWorkerIDTheWorkerClaimsAsGoHostPid(t *testing.T) {
	t.Setenv("SLUICE_WORKER_ID", "")
	if got := claimWorkerID(t, WorkerOptions{}); !strings.HasPrefix(got, "go:") {
		t.Fatalf("claimed as %q, want go:host:pid", got)
	}
}
