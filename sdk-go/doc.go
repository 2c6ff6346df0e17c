// Package workflow is the Go worker SDK of Sluice: register durable workflows, run a
// worker that claims their runs from a Sluice server over the worker protocol
// (docs/PROTOCOL.md), and enqueue or signal runs.
//
// The names follow Tako's Go workflow SDK. Its import path, github.com/tako-sh/tako/sdk/go,
// is the module in packages/tako-go (this package re-exported), so its examples build
// unchanged; Sluice's own path is:
//
//	import workflow "sluice.dev/sdk-go"
//
// The server is found in the environment: SLUICE_URL (e.g. http://127.0.0.1:7777),
// and SLUICE_TOKEN (a token with scope "worker") when the server requires tokens.
//
// A handler runs from the top on every claim of its run. Each ctx.Step call has a
// key (its name; a repeated name becomes name#2, name#3 in call order); a key already
// in the run's journal returns its checkpointed result instead of running again.
// ctx.Step.Sleep and ctx.Step.WaitFor may park the run: they then return ErrParked,
// which the handler must return, and the run is claimed again when it wakes.
package workflow
