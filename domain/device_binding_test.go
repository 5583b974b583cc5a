package domain

import (
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestDecideDevice(t *testing.T) {
	now := at(5)
	bound := EvolveDevice(DeviceBinding{}, DeviceBound{Name: "pico-01", Address: "127.0.0.3", At: t0})
	released := EvolveDevice(bound, DeviceReleased{Address: "127.0.0.3", At: at(1)})
	tests := []struct {
		name    string
		b       DeviceBinding
		cmd     DeviceCommand
		want    []Event
		wantErr error
	}{
		{name: "the first address is bound", cmd: BindDevice{Name: "pico-01", Address: "127.0.0.3"},
			want: []Event{DeviceBound{Name: "pico-01", Address: "127.0.0.3", At: now}}},
		{name: "an IPv4-mapped address binds as IPv4", cmd: BindDevice{Name: "pico-01", Address: "::ffff:127.0.0.3"},
			want: []Event{DeviceBound{Name: "pico-01", Address: "127.0.0.3", At: now}}},
		{name: "the bound address passes", b: bound, cmd: BindDevice{Name: "pico-01", Address: "127.0.0.3"}},
		{name: "another address is refused", b: bound, cmd: BindDevice{Name: "pico-01", Address: "127.0.0.4"}, wantErr: ErrForbidden},
		{name: "after a release the next address is bound", b: released, cmd: BindDevice{Name: "pico-01", Address: "127.0.0.4"},
			want: []Event{DeviceBound{Name: "pico-01", Address: "127.0.0.4", At: now}}},
		{name: "not an address", cmd: BindDevice{Name: "pico-01", Address: "pico.local"}, wantErr: ErrInvalid},
		{name: "not a name", cmd: BindDevice{Name: "Pico 1", Address: "127.0.0.3"}, wantErr: ErrInvalid},
		{name: "release", b: bound, cmd: ReleaseDevice{}, want: []Event{DeviceReleased{Address: "127.0.0.3", At: now}}},
		{name: "release of a name not bound", b: released, cmd: ReleaseDevice{}, wantErr: ErrNotFound},
		{name: "nil command", cmd: nil, wantErr: ErrInvalid},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := DecideDevice(tt.b, tt.cmd, now)
			checkDecision(t, got, err, tt.want, tt.wantErr)
		})
	}
	want := DeviceBinding{Name: "pico-01", Version: 2}
	if diff := cmp.Diff(want, released); diff != "" {
		t.Errorf("released binding (-want +got):\n%s", diff)
	}
}
