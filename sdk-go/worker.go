package workflow

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"
)

// WorkerOptions configure a Worker; zero values take the defaults.
type WorkerOptions struct {
	// Concurrency is how many runs execute at once (default 500, or SLUICE_WORKER_CONCURRENCY).
	Concurrency int
	// Lease is how long a claim is held without a heartbeat (default 30 s); heartbeats go every third.
	Lease time.Duration
	// PollWait is how long one claim request waits for work on the server (default 20 s).
	PollWait time.Duration
	// InlineSleep: sleeps and step retry delays up to this long wait in the worker (default 30 s).
	InlineSleep time.Duration
	// WorkerID identifies this worker in leases (default SLUICE_WORKER_ID, which Sluice sets
	// for the worker commands of sluice.json so that it can end a dead worker's claims at once;
	// else go:host:pid).
	WorkerID string
	// ExitWhenIdle, when positive, makes Run return nil once the worker has had no run to
	// execute for this long: no claim came and none is running (scale to zero). Zero takes
	// SLUICE_EXIT_WHEN_IDLE_MS (milliseconds), which Sluice sets for a sluice.json worker
	// command it runs as a scale-to-zero lane; negative never exits when idle.
	ExitWhenIdle time.Duration
}

// Worker claims and runs the registered workflows' runs.
type Worker struct {
	client *Client
	outbox *outbox
	opts   WorkerOptions
	defs   map[string]*definition

	mu     sync.Mutex
	active map[string]*execution
	// lastBusy is when a run last started or ended (or the claim loop began): the idle window counts from it.
	lastBusy time.Time
	wg       sync.WaitGroup
	slots    chan struct{}
	// optErr is a bad setting read from the environment, returned by Run.
	optErr error
}

// RunWorker registers the workflows with the server named by SLUICE_URL and runs their
// runs until ctx is cancelled; it then stops claiming, lets running handlers finish
// (heartbeating their leases meanwhile) and returns nil.
func RunWorker(ctx context.Context) error {
	c, err := ClientFromEnv()
	if err != nil {
		return err
	}
	opts := WorkerOptions{}
	if n, err := strconv.Atoi(os.Getenv("SLUICE_WORKER_CONCURRENCY")); err == nil && n > 0 {
		opts.Concurrency = n
	}
	return NewWorker(c, opts).Run(ctx)
}

// NewWorker returns a worker of the workflows registered so far.
func NewWorker(c *Client, opts WorkerOptions) *Worker {
	if opts.Concurrency <= 0 {
		opts.Concurrency = 500
	}
	if opts.Lease <= 0 {
		opts.Lease = 30 * time.Second
	}
	if opts.PollWait <= 0 {
		opts.PollWait = 20 * time.Second
	}
	if opts.InlineSleep <= 0 {
		opts.InlineSleep = 30 * time.Second
	}
	if opts.WorkerID == "" {
		opts.WorkerID = defaultWorkerID()
	}
	var optErr error
	if opts.ExitWhenIdle == 0 {
		opts.ExitWhenIdle, optErr = exitWhenIdleFromEnv()
	}
	defs := map[string]*definition{}
	for _, d := range registered() {
		defs[d.Name] = d
	}
	return &Worker{client: c, outbox: newOutbox(c), opts: opts, defs: defs, active: map[string]*execution{}, slots: make(chan struct{}, opts.Concurrency), optErr: optErr}
}

// exitWhenIdleFromEnv reads SLUICE_EXIT_WHEN_IDLE_MS: 0 when unset.
func exitWhenIdleFromEnv() (time.Duration, error) {
	raw := strings.TrimSpace(os.Getenv("SLUICE_EXIT_WHEN_IDLE_MS"))
	if raw == "" {
		return 0, nil
	}
	ms, err := strconv.ParseInt(raw, 10, 64)
	if err != nil || ms <= 0 {
		return 0, fmt.Errorf("sluice: SLUICE_EXIT_WHEN_IDLE_MS must be a positive whole number of milliseconds (the idle window after which the worker exits), got %q", raw)
	}
	return time.Duration(ms) * time.Millisecond, nil
}

// Run registers the workflows, then claims and executes runs until ctx is cancelled,
// and drains (see RunWorker).
func (w *Worker) Run(ctx context.Context) error {
	if w.optErr != nil {
		return w.optErr
	}
	if len(w.defs) == 0 {
		return errors.New("sluice: no workflows registered: call workflow.RegisterWorkflow before RunWorker")
	}
	list := make([]*definition, 0, len(w.defs))
	names := make([]string, 0, len(w.defs))
	versions := map[string]bool{}
	for _, d := range registered() {
		if _, ok := w.defs[d.Name]; ok {
			list = append(list, d)
			names = append(names, d.Name)
			versions[d.Version] = true
		}
	}
	if len(versions) > 1 {
		return errors.New("sluice: a worker runs one code version, but its workflows name several: give every workflow the same WithVersion (or none)")
	}
	version := list[0].Version
	if err := w.client.post(ctx, "/api/worker/workflows", map[string]any{"workflows": list}, nil); err != nil {
		return fmt.Errorf("sluice: registering workflows: %w", err)
	}
	stopBeats := make(chan struct{})
	beatsDone := make(chan struct{})
	go w.heartbeats(stopBeats, beatsDone)
	w.mu.Lock()
	w.lastBusy = time.Now()
	w.mu.Unlock()
	failures := 0
	for ctx.Err() == nil {
		wait, idle := w.pollWait()
		if idle {
			fmt.Fprintf(os.Stderr, "sluice worker: no run for %v (its idle window): exiting\n", w.opts.ExitWhenIdle)
			break
		}
		free := w.acquireSlots(ctx)
		if free == 0 {
			break
		}
		var out struct {
			Claims []claim `json:"claims"`
		}
		req := claimRequest{WorkerID: w.opts.WorkerID, Workflows: names, Limit: free, LeaseMs: w.opts.Lease.Milliseconds(), WaitMs: wait.Milliseconds(), Version: version}
		err := w.client.post(ctx, "/api/worker/claim", req, &out)
		for i := len(out.Claims); i < free; i++ {
			<-w.slots
		}
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			failures++
			delay := backoff(250*time.Millisecond, 10*time.Second, failures)
			fmt.Fprintf(os.Stderr, "sluice worker: claim failed (%v); retrying in %v\n", err, delay.Round(time.Millisecond))
			sleepCtx(ctx, delay)
			continue
		}
		failures = 0
		started := make([]*execution, 0, len(out.Claims))
		for _, c := range out.Claims {
			started = append(started, w.start(ctx, c))
		}
		w.letStartsWrite(ctx, started)
	}
	w.wg.Wait()
	close(stopBeats)
	<-beatsDone
	return nil
}

// pollWait is how long the next claim may wait on the server: PollWait, cut to what is left
// of the idle window when the worker exits when idle (the whole window while a run executes,
// so that a run ending during the poll is followed by at most one more window). idle is true
// once no run has executed for the whole window: the worker stops claiming.
func (w *Worker) pollWait() (wait time.Duration, idle bool) {
	wait = w.opts.PollWait
	window := w.opts.ExitWhenIdle
	if window <= 0 {
		return wait, false
	}
	w.mu.Lock()
	left := window
	if len(w.active) == 0 {
		left -= time.Since(w.lastBusy)
	}
	w.mu.Unlock()
	if left <= 0 {
		return 0, true
	}
	if left < wait {
		// Whole milliseconds, rounded up: a wait of 0 ms would not wait at all.
		wait = (left + time.Millisecond - 1).Truncate(time.Millisecond)
	}
	return wait, false
}

// acquireSlots blocks until at least one slot is free and takes every free one;
// 0 when ctx was cancelled first.
func (w *Worker) acquireSlots(ctx context.Context) int {
	select {
	case w.slots <- struct{}{}:
	case <-ctx.Done():
		return 0
	}
	n := 1
	for n < cap(w.slots) {
		select {
		case w.slots <- struct{}{}:
			n++
			continue
		default:
		}
		break
	}
	return n
}

// startGrace bounds how long the claim loop lets new runs send their first write
// before it asks for more work (see letStartsWrite).
const startGrace = 2 * time.Millisecond

// letStartsWrite waits until the runs just claimed have sent their first write or
// ended, at most startGrace: a claim costs the server a store query, and sent just
// ahead of those writes it would delay them (the claim's long-poll is re-armed
// within startGrace either way).
func (w *Worker) letStartsWrite(ctx context.Context, es []*execution) {
	t := time.NewTimer(startGrace)
	defer t.Stop()
	for _, e := range es {
		select {
		case <-e.firstWrite:
		case <-t.C:
			return
		case <-ctx.Done():
			return
		}
	}
}

func (w *Worker) start(ctx context.Context, c claim) *execution {
	// Handlers keep running through a drain: their context ends only when the lease is lost.
	e := newExecution(context.Background(), w.outbox, c, w.opts.InlineSleep)
	w.mu.Lock()
	w.active[c.RunID] = e
	w.lastBusy = time.Now()
	w.mu.Unlock()
	w.wg.Add(1)
	go func() {
		defer func() {
			w.mu.Lock()
			delete(w.active, c.RunID)
			w.lastBusy = time.Now()
			w.mu.Unlock()
			e.cancel()
			e.wrote()
			<-w.slots
			w.wg.Done()
		}()
		w.execute(e)
	}()
	return e
}

func (w *Worker) heartbeats(stop <-chan struct{}, done chan<- struct{}) {
	defer close(done)
	t := time.NewTicker(w.opts.Lease / 3)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		w.mu.Lock()
		leases := make([]lease, 0, len(w.active))
		for _, e := range w.active {
			leases = append(leases, lease{RunID: e.claim.RunID, Token: e.claim.Token})
		}
		w.mu.Unlock()
		if len(leases) == 0 {
			continue
		}
		var out struct {
			Lost []string `json:"lost"`
		}
		ctx, cancel := context.WithTimeout(context.Background(), w.opts.Lease/3)
		err := w.client.post(ctx, "/api/worker/heartbeat", map[string]any{"leases": leases, "leaseMs": w.opts.Lease.Milliseconds()}, &out)
		cancel()
		if err != nil {
			fmt.Fprintf(os.Stderr, "sluice worker: heartbeat failed (%v)\n", err)
			continue
		}
		w.mu.Lock()
		for _, id := range out.Lost {
			if e := w.active[id]; e != nil {
				e.markLost()
			}
		}
		w.mu.Unlock()
	}
}

func sleepCtx(ctx context.Context, d time.Duration) {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// defaultWorkerID is SLUICE_WORKER_ID when set (the id the supervising Sluice releases the
// claims of when this process exits), else go:host:pid.
func defaultWorkerID() string {
	if id := strings.TrimSpace(os.Getenv("SLUICE_WORKER_ID")); id != "" {
		return id
	}
	host, _ := os.Hostname()
	return fmt.Sprintf("go:%s:%d", host, os.Getpid())
}
