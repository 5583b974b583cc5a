package domain

import (
	"fmt"
	"net/netip"
	"time"
)

// DeviceBinding ties a device's name to the network address it first spoke
// from. Devices such as the Pico cannot authenticate; the binding is what
// keeps another machine from speaking for a device once it has been heard
// from. Only an admin's release undoes it.
type DeviceBinding struct {
	Name string `json:"name"`
	// Address is the bound IP address; empty when the name is not bound.
	Address string `json:"address,omitempty"`
	// BoundAt is when the current binding was made.
	BoundAt time.Time `json:"boundAt"`
	// Version is the number of events in the binding's stream.
	Version int64 `json:"version"`
	// ResourceVersion is the log position of the binding's latest event.
	ResourceVersion int64 `json:"resourceVersion"`
}

// Bound reports whether the name is bound to an address.
func (b DeviceBinding) Bound() bool { return b.Address != "" }

// DeviceAggregate is the device-name binding in the log: streams
// "device/NAME" and the events they hold.
var DeviceAggregate = defineAggregate("device",
	eventOf[DeviceBound](1),
	eventOf[DeviceReleased](1),
)

// DeviceBound records that a device name was bound to the address it spoke from.
type DeviceBound struct {
	Name    string    `json:"name"`
	Address string    `json:"address"`
	At      time.Time `json:"at"`
}

// DeviceReleased records that an admin released a device name from its address, so
// that the next address to speak for it is bound instead.
type DeviceReleased struct {
	Address string    `json:"address"`
	At      time.Time `json:"at"`
}

// EventType implements Event.
func (DeviceBound) EventType() string { return "DeviceBound" }

// EventType implements Event.
func (DeviceReleased) EventType() string { return "DeviceReleased" }

// DeviceCommand is BindDevice or ReleaseDevice.
type DeviceCommand interface {
	decideDevice(b DeviceBinding, now time.Time) ([]Event, error)
}

// BindDevice is a device speaking for its name from Address. The first
// address to do so is bound (DeviceBound); the bound address passes
// without an event; any other address is refused with ErrForbidden until
// an admin releases the name.
type BindDevice struct {
	Name    string
	Address string
}

func (c BindDevice) decideDevice(b DeviceBinding, now time.Time) ([]Event, error) {
	var errs []FieldError
	for _, msg := range dns1123SubdomainProblems(c.Name) {
		errs = append(errs, FieldError{Field: "metadata.name", Value: c.Name, Reason: msg})
	}
	addr, err := netip.ParseAddr(c.Address)
	if err != nil {
		errs = append(errs, FieldError{Field: "address", Value: c.Address, Reason: "must be an IP address"})
	}
	if err := invalid("DeviceBinding", c.Name, errs); err != nil {
		return nil, err
	}
	a := addr.Unmap().String()
	switch {
	case !b.Bound():
		return []Event{DeviceBound{Name: c.Name, Address: a, At: now}}, nil
	case b.Address == a:
		return nil, nil
	}
	return nil, fmt.Errorf("device %q is bound to %s, not %s; an admin can release it (herd device release %s): %w",
		c.Name, b.Address, a, c.Name, ErrForbidden)
}

// ReleaseDevice frees a device name from its address. Releasing a name
// that is not bound fails with ErrNotFound.
type ReleaseDevice struct{}

func (ReleaseDevice) decideDevice(b DeviceBinding, now time.Time) ([]Event, error) {
	if !b.Bound() {
		return nil, fmt.Errorf("device binding %q: %w", b.Name, ErrNotFound)
	}
	return []Event{DeviceReleased{Address: b.Address, At: now}}, nil
}

// DecideDevice returns the events cmd causes on binding b at time now, or a
// typed error.
func DecideDevice(b DeviceBinding, cmd DeviceCommand, now time.Time) ([]Event, error) {
	if cmd == nil {
		return nil, fmt.Errorf("nil device command: %w", ErrInvalid)
	}
	return cmd.decideDevice(b, now.UTC())
}

// EvolveDevice folds one event into a binding.
func EvolveDevice(b DeviceBinding, e Event) DeviceBinding {
	b.Version++
	switch e := e.(type) {
	case DeviceBound:
		b.Name, b.Address, b.BoundAt = e.Name, e.Address, e.At
	case DeviceReleased:
		b.Address, b.BoundAt = "", time.Time{}
	}
	return b
}
