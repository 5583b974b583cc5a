package conversions

import (
	"fmt"
	"reflect"
	"slices"
	"unsafe"
)

// derive is the conversion of struct From into struct To field by field,
// planned once, when it is called (at the package's start): each field
// of To that From has by name is set from it when both are a string, a
// bool or a number of one kind (a named string to a string, an int32 to
// an int32), or pointers to such values, copied; a field of To that From
// lacks stays zero, and one of From that To lacks is not read. The
// fields named in byHand are left for the conversion's caller to set; a
// field both have in any other types is a programming error, caught as
// the conversion is planned. It is for the plain fields of a status the
// API and herd say alike; what one of them says otherwise is written by
// hand.
func derive[From, To any](byHand ...string) func(From) To {
	type step struct {
		from, to uintptr      // the fields' offsets
		size     uintptr      // the size of the value
		kind     reflect.Kind // of the value
		pointer  reflect.Type // of the value pointed to, when the fields are pointers
	}
	from, to := reflect.TypeFor[From](), reflect.TypeFor[To]()
	var steps []step
	for i := range to.NumField() {
		t := to.Field(i)
		f, ok := from.FieldByName(t.Name)
		if !ok || !t.IsExported() || slices.Contains(byHand, t.Name) {
			continue
		}
		ft, tt, s := f.Type, t.Type, step{from: f.Offset, to: t.Offset}
		if ft.Kind() == reflect.Pointer && tt.Kind() == reflect.Pointer {
			ft, tt, s.pointer = ft.Elem(), tt.Elem(), tt.Elem()
		}
		if ft.Kind() != tt.Kind() || !plainKind(ft.Kind()) || len(f.Index) != 1 {
			panic(fmt.Sprintf("conversions: %s.%s (%s) to %s.%s (%s) is to be written by hand", from, f.Name, f.Type, to, t.Name, t.Type))
		}
		s.size, s.kind = ft.Size(), ft.Kind()
		steps = append(steps, s)
	}
	return func(in From) To {
		var out To
		for _, s := range steps {
			src, dst := unsafe.Add(unsafe.Pointer(&in), s.from), unsafe.Add(unsafe.Pointer(&out), s.to)
			if s.pointer != nil {
				if src = *(*unsafe.Pointer)(src); src == nil {
					continue
				}
				p := reflect.New(s.pointer).UnsafePointer()
				*(*unsafe.Pointer)(dst), dst = p, p
			}
			switch {
			case s.kind == reflect.String:
				*(*string)(dst) = *(*string)(src)
			case s.size == 8:
				*(*uint64)(dst) = *(*uint64)(src)
			case s.size == 4:
				*(*uint32)(dst) = *(*uint32)(src)
			case s.size == 2:
				*(*uint16)(dst) = *(*uint16)(src)
			default:
				*(*uint8)(dst) = *(*uint8)(src)
			}
		}
		return out
	}
}

// plainKind reports whether derive copies a value of kind k: one of the
// same kind has the same size and bits.
func plainKind(k reflect.Kind) bool {
	switch k {
	case reflect.String, reflect.Bool, reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64, reflect.Float32, reflect.Float64:
		return true
	}
	return false
}
