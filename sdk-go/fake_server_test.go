package workflow

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"
)

// fakeServer stands in for the Sluice server in pure client tests: it records the
// requests and answers each path with a scripted function. (The real server is
// exercised by the repository's end-to-end test, test/sdk-go/go-worker.test.ts.)
type fakeServer struct {
	t        *testing.T
	srv      *httptest.Server
	mu       sync.Mutex
	requests []recorded
	answer   func(path string, body map[string]any) (int, any)
	// batches counts POST /api/worker/batch requests (their writes are recorded one by one).
	batches int
}

type recorded struct {
	Path string
	Body map[string]any
	Auth string
}

func newFakeServer(t *testing.T, answer func(path string, body map[string]any) (int, any)) *fakeServer {
	f := &fakeServer{t: t, answer: answer}
	f.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		raw, _ := io.ReadAll(r.Body)
		var body map[string]any
		_ = json.Unmarshal(raw, &body)
		w.Header().Set("Content-Type", "application/json")
		if r.URL.Path == "/api/worker/batch" {
			_ = json.NewEncoder(w).Encode(f.batch(body, r.Header.Get("Authorization")))
			return
		}
		f.mu.Lock()
		f.requests = append(f.requests, recorded{Path: r.URL.Path, Body: body, Auth: r.Header.Get("Authorization")})
		f.mu.Unlock()
		status, out := 200, any(map[string]any{})
		if f.answer != nil {
			status, out = f.answer(r.URL.Path, body)
		}
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(out)
	}))
	t.Cleanup(f.srv.Close)
	return f
}

// batch answers POST /api/worker/batch write by write, as if each had been sent to its
// own route (recorded under that route's path), as the server does.
func (f *fakeServer) batch(body map[string]any, auth string) map[string]any {
	f.mu.Lock()
	f.batches++
	f.mu.Unlock()
	writes, _ := body["writes"].([]any)
	results := make([]any, 0, len(writes))
	for _, raw := range writes {
		wr, _ := raw.(map[string]any)
		inner, _ := wr["body"].(map[string]any)
		path := "/api/worker/runs/" + wr["runId"].(string) + "/" + wr["op"].(string)
		f.mu.Lock()
		f.requests = append(f.requests, recorded{Path: path, Body: inner, Auth: auth})
		f.mu.Unlock()
		status, out := 200, any(map[string]any{})
		if f.answer != nil {
			status, out = f.answer(path, inner)
		}
		results = append(results, map[string]any{"status": status, "body": out})
	}
	return map[string]any{"results": results}
}

func (f *fakeServer) client() *Client {
	return &Client{BaseURL: f.srv.URL, Token: "tok", HTTP: f.srv.Client()}
}

// paths returns the recorded paths with the given prefix stripped.
func (f *fakeServer) paths(prefix string) []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []string
	for _, r := range f.requests {
		out = append(out, strings.TrimPrefix(r.Path, prefix))
	}
	return out
}

func (f *fakeServer) last(path string) map[string]any {
	f.mu.Lock()
	defer f.mu.Unlock()
	for i := len(f.requests) - 1; i >= 0; i-- {
		if f.requests[i].Path == path {
			return f.requests[i].Body
		}
	}
	f.t.Fatalf("no request to %s (got %v)", path, f.requests)
	return nil
}

func testClaim(steps ...journalEntry) claim {
	return claim{RunID: "run-1", Token: 7, Workflow: "wf", Payload: json.RawMessage(`{"orderId":"o1"}`), Attempt: 1, MaxAttempts: 3, ClaimedAt: time.Now().UnixMilli(), LeaseMs: 30_000, Steps: steps}
}

func i64(v int64) *int64 { return &v }

// runOnClaims runs a worker (2 slots) against a fake server whose first claim answer is
// `answer` (JSON as the server sends it) and every later one empty; stop ends the worker.
func runOnClaims(t *testing.T, answer string) (stop func()) {
	served := false
	f := newFakeServer(t, func(path string, _ map[string]any) (int, any) {
		if path == "/api/worker/claim" {
			if served {
				time.Sleep(20 * time.Millisecond)
				return 200, map[string]any{"claims": []any{}}
			}
			served = true
			return 200, json.RawMessage(answer)
		}
		return 200, map[string]any{}
	})
	ctx, cancel := context.WithCancel(context.Background())
	go func() {
		_ = NewWorker(f.client(), WorkerOptions{Concurrency: 2, PollWait: 50 * time.Millisecond}).Run(ctx)
	}()
	return cancel
}
