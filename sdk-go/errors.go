package workflow

import (
	"errors"
	"fmt"
)

// ErrParked is returned by ctx.Step operations when the run was parked (a long sleep,
// a wait for a signal, a step retry with a long backoff). Return it from the handler:
// the run continues on a later claim, replaying its checkpointed steps.
var ErrParked = errors.New("sluice: the run is parked until it wakes; return this error from the handler")

// ErrLeaseLost is matched (errors.Is) by writes the server refused because this claim
// no longer owns the run (its lease expired and another claim took it, or it was
// cancelled). The worker stops working on the claim.
var ErrLeaseLost = errors.New("sluice: lost the lease on the run: another claim owns it now")

// ErrUnavailable is returned when SLUICE_URL is not set: there is no server to talk to.
var ErrUnavailable = errors.New("sluice: SLUICE_URL is not set: run under `sluice dev`/`sluice server`, or set SLUICE_URL=http://127.0.0.1:7777 (and SLUICE_TOKEN when the server uses tokens)")

// APIError is an error answered by the Sluice server.
type APIError struct {
	// Status is the HTTP status.
	Status int
	// Code is the stable error code, e.g. LEASE_LOST, UNKNOWN_WORKFLOW, RUN_ID_CONFLICT.
	Code string
	// Message says what was wrong and what to do.
	Message string
}

func (e *APIError) Error() string {
	return fmt.Sprintf("sluice: %s (%s, HTTP %d)", e.Message, e.Code, e.Status)
}

// Is makes errors.Is(err, ErrLeaseLost) true for a LEASE_LOST answer.
func (e *APIError) Is(target error) bool {
	return target == ErrLeaseLost && e.Code == "LEASE_LOST"
}

// BailError is what ctx.Bail returns: the run ends cancelled, without retry.
type BailError struct{ Reason string }

func (e *BailError) Error() string { return "sluice: run bailed: " + e.Reason }

// FailError is what ctx.Fail returns: the run ends failed ("dead"), without retry.
type FailError struct{ Err error }

func (e *FailError) Error() string {
	if e.Err == nil {
		return "sluice: run failed"
	}
	return "sluice: run failed: " + e.Err.Error()
}

// Unwrap returns the cause.
func (e *FailError) Unwrap() error { return e.Err }

// permanentError marks a step error that must not be retried (StepRunOpts.NoRetry,
// a result that cannot be encoded, a journal that does not match the code).
type permanentError struct{ err error }

func (e *permanentError) Error() string { return e.err.Error() }
func (e *permanentError) Unwrap() error { return e.err }

// NonDeterminismError: the journal holds a different kind of call at this key than the
// code now makes (the workflow's code changed under a running run).
type NonDeterminismError struct {
	Key, Recorded, Requested string
	// Position is the call's index in the execution, from 0.
	Position int
}

func (e *NonDeterminismError) Error() string {
	return fmt.Sprintf("sluice: step %q (call #%d) was recorded as a %s but the code now calls %s there: keep step names stable while runs are in flight", e.Key, e.Position+1, e.Recorded, e.Requested)
}
