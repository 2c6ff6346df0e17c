// Package workflow is seed 002's Go import path, github.com/tako-sh/tako/sdk/go, for
// Sluice: every name re-exports the Sluice Go SDK (sluice.dev/sdk-go, ../../sdk-go), so
// Tako's Go workflow examples build unchanged. Point your go.mod at both folders:
//
//	require github.com/tako-sh/tako/sdk/go v0.0.0
//	replace github.com/tako-sh/tako/sdk/go => /path/to/sluice/packages/tako-go
//	replace sluice.dev/sdk-go => /path/to/sluice/sdk-go
//
// The names, their behaviour and the environment (SLUICE_URL, SLUICE_TOKEN) are the
// Sluice SDK's; see sdk-go/README.md.
package workflow

import (
	"context"
	"time"

	sluice "sluice.dev/sdk-go"
)

// Types: aliases, so values pass freely between this package and sluice.dev/sdk-go.
type (
	APIError            = sluice.APIError
	ApprovalOpts        = sluice.ApprovalOpts
	ApprovalResult      = sluice.ApprovalResult
	BailError           = sluice.BailError
	ChildCall           = sluice.ChildCall
	ChildError          = sluice.ChildError
	ChildOpts           = sluice.ChildOpts
	Client              = sluice.Client
	Concurrency         = sluice.Concurrency
	EnqueueOpts         = sluice.EnqueueOpts
	EnqueueResult       = sluice.EnqueueResult
	FailError           = sluice.FailError
	HandlerFunc         = sluice.HandlerFunc
	Logger              = sluice.Logger
	NonDeterminismError = sluice.NonDeterminismError
	ResumeURLs          = sluice.ResumeURLs
	SignalOpts          = sluice.SignalOpts
	StepRunOpts         = sluice.StepRunOpts
	Steps               = sluice.Steps
	TraceContext        = sluice.TraceContext
	Worker              = sluice.Worker
	WorkerOptions       = sluice.WorkerOptions
	WorkflowContext     = sluice.WorkflowContext
	WorkflowOption      = sluice.WorkflowOption
)

// ErrLeaseLost is sluice.ErrLeaseLost (the same value: errors.Is matches either name).
var ErrLeaseLost = sluice.ErrLeaseLost

// ErrParked is sluice.ErrParked: return it from the handler when a step parks the run.
var ErrParked = sluice.ErrParked

// ErrUnavailable is sluice.ErrUnavailable: SLUICE_URL is not set.
var ErrUnavailable = sluice.ErrUnavailable

// RegisterWorkflow registers a workflow for RunWorker (sluice.RegisterWorkflow).
func RegisterWorkflow(name string, handler HandlerFunc, opts ...WorkflowOption) {
	sluice.RegisterWorkflow(name, handler, opts...)
}

// RunWorker claims and runs the registered workflows' runs until ctx ends (sluice.RunWorker).
func RunWorker(ctx context.Context) error { return sluice.RunWorker(ctx) }

// Enqueue creates a run, or returns the existing one of the same id (sluice.Enqueue).
func Enqueue(ctx context.Context, name string, payload any, opts EnqueueOpts) (*EnqueueResult, error) {
	return sluice.Enqueue(ctx, name, payload, opts)
}

// Signal wakes the runs waiting on event and returns how many (sluice.Signal).
func Signal(ctx context.Context, event string, payload any, opts ...SignalOpts) (uint64, error) {
	return sluice.Signal(ctx, event, payload, opts...)
}

// ClientFromEnv is the client of SLUICE_URL and SLUICE_TOKEN (sluice.ClientFromEnv).
func ClientFromEnv() (*Client, error) { return sluice.ClientFromEnv() }

// NewWorker is a worker with explicit options (sluice.NewWorker).
func NewWorker(c *Client, opts WorkerOptions) *Worker { return sluice.NewWorker(c, opts) }

// TraceContextFrom reads the run's trace context from ctx (sluice.TraceContextFrom).
func TraceContextFrom(ctx context.Context) (TraceContext, bool) { return sluice.TraceContextFrom(ctx) }

// WithMaxAttempts sets the attempts of a run, counting the first (sluice.WithMaxAttempts).
func WithMaxAttempts(n uint32) WorkflowOption { return sluice.WithMaxAttempts(n) }

// WithGroup sets the worker group of the workflow's runs (sluice.WithGroup).
func WithGroup(group string) WorkflowOption { return sluice.WithGroup(group) }

// WithSchedule runs the workflow on a five-field cron expression (sluice.WithSchedule).
func WithSchedule(cron string) WorkflowOption { return sluice.WithSchedule(cron) }

// WithBackoff sets the run-level retry delays (sluice.WithBackoff).
func WithBackoff(base, max time.Duration) WorkflowOption { return sluice.WithBackoff(base, max) }

// WithTask registers a task function of the workflow (sluice.WithTask).
func WithTask(name string, fn HandlerFunc) WorkflowOption { return sluice.WithTask(name, fn) }

// WithVersion sets the worker's code version (sluice.WithVersion).
func WithVersion(v string) WorkflowOption { return sluice.WithVersion(v) }
