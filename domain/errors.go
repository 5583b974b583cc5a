package domain

import (
	"errors"
	"fmt"
)

// ErrNotFound is returned when a command names an object herd does not know.
var ErrNotFound = errors.New("not found")

// ErrConflict is returned when a command races another writer (a stale
// version) or contradicts the object's current state.
var ErrConflict = errors.New("conflict")

// ErrAlreadyExists is returned when a create names an object that exists.
var ErrAlreadyExists = errors.New("already exists")

// ErrInvalid is the sentinel every *InvalidError matches with errors.Is.
var ErrInvalid = errors.New("invalid")

// FieldError names one field of a rejected command and why it was rejected.
type FieldError struct {
	// Field is the path of the offending field in API terms, such as
	// "metadata.name" or "metrics.memoryAvailableBytes".
	Field string
	// Value is the rejected value, rendered for a human; may be empty.
	Value string
	// Reason says what is wrong, such as "must not be negative".
	Reason string
}

// InvalidError is a command rejected for bad input. It lists every problem
// found, not just the first, so that a client can fix them in one go.
type InvalidError struct {
	// Kind is the object kind, such as "Node".
	Kind string
	// Name is the object's name as given (possibly itself invalid).
	Name string
	// Fields are the individual problems, in the order they were found.
	Fields []FieldError
}

func (e *InvalidError) Error() string {
	msg := fmt.Sprintf("%s %q is invalid:", e.Kind, e.Name)
	for i, f := range e.Fields {
		if i > 0 {
			msg += ","
		}
		if f.Value != "" {
			msg += fmt.Sprintf(" %s: Invalid value: %q: %s", f.Field, f.Value, f.Reason)
		} else {
			msg += fmt.Sprintf(" %s: %s", f.Field, f.Reason)
		}
	}
	return msg
}

// Is makes errors.Is(err, ErrInvalid) true for every InvalidError.
func (e *InvalidError) Is(target error) bool { return target == ErrInvalid }

// invalid builds an InvalidError, or returns nil when there are no problems.
func invalid(kind, name string, fields []FieldError) error {
	if len(fields) == 0 {
		return nil
	}
	return &InvalidError{Kind: kind, Name: name, Fields: fields}
}

// ErrForbidden is returned when a command may not be carried out for whoever
// asks, whatever the input: a device speaking for a name bound to another
// address.
var ErrForbidden = errors.New("forbidden")
