package garbagecollector

import (
	"context"
	"errors"
	"strings"

	"herd/domain"
)

// dependent is an object with owners as the collector sees it, whatever
// its kind.
type dependent struct {
	kind      *kind
	namespace string
	name      string
	uid       string
	// resourceVersion is the object's as read: a deletion or a release is
	// made only on the object as it was judged.
	resourceVersion int64
	owners          []domain.OwnerReference
	// deleting says its deletion is under way already.
	deleting bool
}

func (d dependent) String() string { return d.kind.name + " " + d.namespace + "/" + d.name }

// owner is what the collector reads of an object another names as its
// owner.
type owner struct {
	// exists says an object of that kind, name and uid exists.
	exists bool
	// deleting says it is being deleted in the foreground, waiting for
	// its dependents.
	deleting bool
	// orphaning says it was deleted with its dependents orphaned: they
	// lose their reference to it rather than follow it.
	orphaning bool
}

// ownerOf reads an object's state as an owner with uid: gone when it
// does not exist or is another object of the same name.
func ownerOf(exists bool, uid, want string, deleting, orphan bool) owner {
	if uid != want {
		return owner{}
	}
	return owner{exists: exists, deleting: exists && deleting, orphaning: !exists && orphan}
}

// ignoreNotFound is err, but nil for domain.ErrNotFound: an object never
// created is an owner that is gone.
func ignoreNotFound(err error) error {
	if errors.Is(err, domain.ErrNotFound) {
		return nil
	}
	return err
}

// groupOf is the API group of an apiVersion: "" for "v1", "apps" for
// "apps/v1".
func groupOf(apiVersion string) string {
	g, _, ok := strings.Cut(apiVersion, "/")
	if !ok {
		return ""
	}
	return g
}

// lookup reads an owner of kind k: found is false for a kind herd does
// not serve, whose owners the collector cannot see and so never takes to
// be gone (Kubernetes' collector likewise leaves a dependent whose
// owner's kind it cannot resolve).
type lookup func(ctx context.Context, namespace, name, uid string) (owner, error)

// kind is one kind of object herd stores: how the collector lists its
// objects that have owners, deletes one, and takes an owner's reference
// off one; and how it reads one as an owner.
type kind struct {
	name, group string
	// namespaced is false for nodes and namespaces, which are owners only.
	namespaced bool
	owner      lookup
	// list, del and release are nil for a kind that is an owner only;
	// every kind that may have owners has all three.
	list func(ctx context.Context, namespace string) ([]dependent, error)
	// aggregate and one, for a kind that may have owners, are its
	// aggregate in the log and the one object of a name as a dependent;
	// ok is false when it does not exist or names no owner.
	aggregate *domain.Aggregate
	one       func(ctx context.Context, namespace, name string) (d dependent, ok bool, err error)
	// indexed says the collector keeps the kind's objects that name
	// owners in its index rather than listing them on every pass: every
	// change of their owners, their creation and their deletion are
	// watched on the object's own key (dependentChanges, indexedEndings).
	indexed bool
	// del deletes d, with propagation for a kind that has dependents of
	// its own.
	del func(ctx context.Context, d dependent, p domain.Propagation) error
	// release takes the reference to the owner of uid off d.
	release func(ctx context.Context, d dependent, uid string) error
	// deleting lists the namespace's objects of the kind being deleted in
	// the foreground, and finish deletes one once nothing blocks it; nil
	// for a kind that is never deleted in the foreground.
	deleting func(ctx context.Context, namespace string) ([]deletingOwner, error)
	finish   func(ctx context.Context, o deletingOwner) error
}
