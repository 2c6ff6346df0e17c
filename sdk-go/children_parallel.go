package workflow

// ChildCall is one child run of Steps.Children.
type ChildCall struct {
	// Name is the child's step key (name#n when it repeats, as for Child).
	Name string
	// Workflow is the registered workflow the child runs (any worker's).
	Workflow string
	// Task, instead of Workflow: a function of this run's own workflow (see Steps.Task).
	Task string
	// Payload is JSON-encoded.
	Payload any
	// Out receives the child's result (a pointer, or nil).
	Out  any
	Opts ChildOpts
}

// Children runs several child runs at once: the first call creates every child not yet
// started in one park (ErrParked: return it from the handler), and the run is claimed
// again once all of them have finished. Then it decodes each child's result into its
// Out and returns one error per call, in order: nil, or a *ChildError when that child
// failed or was cancelled (the others' results are still decoded). The second return is
// ErrParked, ErrLeaseLost, or a permanent error (a payload that is not JSON, a result
// that does not fit its Out, non-determinism).
func (s *Steps) Children(calls []ChildCall) ([]error, error) {
	e := s.exec
	errs := make([]error, len(calls))
	var start []childWrite
	waiting := false
	for i, c := range calls {
		key, pos, err := e.next(c.Name)
		if err != nil {
			return nil, err
		}
		rec, err := e.lookupTarget(key, "task", childTarget(c.Workflow, c.Task), pos)
		if err != nil {
			return nil, err
		}
		switch {
		case rec != nil && rec.Status == "done":
			if err := decodeInto(rec.Value, c.Out, key); err != nil {
				return nil, err
			}
		case rec != nil && rec.Status == "error":
			errs[i] = &permanentError{childError(key, rec)}
		case rec != nil:
			waiting = true
		default:
			w, werr := newChildWrite(key, pos, c.Workflow, c.Task, c.Payload, c.Opts)
			if werr != nil {
				return nil, werr
			}
			start = append(start, w)
		}
	}
	if len(start) == 0 && !waiting {
		return errs, nil
	}
	e.mu.Lock()
	if e.park == nil {
		e.park = &parkRequest{}
	}
	e.park.AwaitChildren = true
	e.park.Children = append(e.park.Children, start...)
	e.mu.Unlock()
	return nil, ErrParked
}
