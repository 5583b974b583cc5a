// Package history keeps a controller's ControllerRevisions, as
// Kubernetes' pkg/controller/history does for its StatefulSet and
// DaemonSet controllers: the revisions an object owns, by number; the
// revision of its template now, made the newest (created, or renumbered
// when an old template comes back, as kubectl rollout undo brings it);
// and the oldest trimmed beyond the object's revisionHistoryLimit, never
// one still in use.
package history

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"slices"

	"herd/domain"
	"herd/reconcilers"
)

// Reader is what a controller reads of the ControllerRevisions.
type Reader interface {
	// List returns the ControllerRevisions of namespace.
	List(ctx context.Context, namespace string) ([]domain.ControllerRevision, int64, error)
}

// Commands is how a controller writes its ControllerRevisions.
type Commands = domain.Executor[domain.ControllerRevision, domain.ControllerRevisionCommand]

// Claim returns the revisions of namespace that the object of owner
// controls, by number (then name), as Kubernetes'
// ControllerRevisionControllerRefManager claims them: it adopts the
// revisions without a controller that selector matches (an object
// deleted with its dependents orphaned and created again takes its
// history back, rather than make a revision under a name that is
// taken), and releases those it controls that selector no longer
// matches. A revision being deleted is neither adopted nor released; one
// adopted by another since it was read is left to it.
func Claim(ctx context.Context, r Reader, cmds Commands, namespace string, selector domain.LabelSelector, owner domain.OwnerReference) ([]domain.ControllerRevision, error) {
	all, _, err := r.List(ctx, namespace)
	if err != nil {
		return nil, err
	}
	var out []domain.ControllerRevision
	for _, rev := range all {
		if !rev.Exists() {
			continue
		}
		matches := selector.Matches(rev.Labels)
		ctrl := slices.IndexFunc(rev.Owners, func(o domain.OwnerReference) bool { return o.Controller })
		var cmd domain.ControllerRevisionCommand
		switch {
		case ctrl >= 0 && rev.Owners[ctrl].UID != owner.UID:
			continue
		case ctrl >= 0 && (matches || rev.DeletionRequestedAt != nil):
			out = append(out, rev)
			continue
		case ctrl >= 0:
			cmd = domain.ReleaseControllerRevision{UID: owner.UID}
		case matches && rev.DeletionRequestedAt == nil:
			cmd = domain.AdoptControllerRevision{Owner: owner}
		default:
			continue
		}
		got, err := cmds.Execute(ctx, rev.Key(), domain.Precondition[domain.ControllerRevisionCommand]{ResourceVersion: rev.ResourceVersion, Command: cmd})
		switch {
		case errors.Is(err, domain.ErrConflict) || errors.Is(err, domain.ErrNotFound):
			continue // adopted or deleted by another since: the next look sees it
		case err != nil:
			return nil, fmt.Errorf("claim revision %s: %w", rev.Name, err)
		}
		if _, adopted := cmd.(domain.AdoptControllerRevision); adopted {
			out = append(out, got)
		}
	}
	sortByNumber(out)
	return out, nil
}

// Observe records the controllers of revisions, all listed just now, in
// ix, the index through which the revisions' events reach their owner
// (reconcilers.Watches.Owns): one made before herd started is known from
// then on, and its deletion by hand reaches its owner.
func Observe(ix *reconcilers.OwnerIndex, revs []domain.ControllerRevision) {
	for _, rev := range revs {
		ix.Observe(rev.Key(), rev.Owners)
	}
}

func sortByNumber(revs []domain.ControllerRevision) {
	slices.SortFunc(revs, func(a, b domain.ControllerRevision) int {
		return cmp.Or(cmp.Compare(a.Spec.Revision, b.Spec.Revision), cmp.Compare(a.Name, b.Name))
	})
}

// Change says what Ensure did to the revision it returned.
type Change int

// What Ensure did: nothing (the revision was the newest already), a new
// revision, or an old one renumbered as the newest.
const (
	Unchanged Change = iota
	Created
	Renumbered
)

// Cause is ctx whose commands name what makes the revision name the
// newest of owned (sorted by number) now, when Ensure has to write it:
// the newest of spec, the owner's last change of what it asks for (a new
// template, or an old one come back), and the deletion of the revision
// by someone else (an operator's kubectl delete controllerrevision),
// which its making again answers. ctx as it is when the revision is the
// newest already: Ensure writes nothing, and the log is not read.
func Cause(ctx context.Context, owned []domain.ControllerRevision, namespace, name string, spec reconcilers.Change) (context.Context, error) {
	if n := len(owned); n > 0 && owned[n-1].Name == name {
		return ctx, nil
	}
	deleted := reconcilers.Change{Stream: domain.ControllerRevisionStream(namespace, name),
		Types: []string{domain.ControllerRevisionDeleted{}.EventType()}, Others: true}
	return reconcilers.BecauseOfNewest(ctx, spec, deleted)
}

// Ensure makes the revision name the newest of owned (sorted by number,
// as Owned returns them): kept as it is when it is the newest already,
// renumbered past the others when it is an older one, or created by
// create, given the number past the others, when there is none. It
// returns that revision and owned with it, by number. create is called
// only when a revision is made (its data costs an encoding).
func Ensure(ctx context.Context, cmds Commands, owned []domain.ControllerRevision, name string,
	create func(number int64) (domain.CreateControllerRevision, error)) (domain.ControllerRevision, []domain.ControllerRevision, Change, error) {
	var next int64 = 1
	if n := len(owned); n > 0 {
		next = owned[n-1].Spec.Revision + 1
	}
	i := slices.IndexFunc(owned, func(rev domain.ControllerRevision) bool { return rev.Name == name })
	switch {
	case i >= 0 && i == len(owned)-1:
		return owned[i], owned, Unchanged, nil
	case i >= 0:
		rev, err := cmds.Execute(ctx, owned[i].Key(), domain.Precondition[domain.ControllerRevisionCommand]{ResourceVersion: owned[i].ResourceVersion, Command: domain.RenumberControllerRevision{Revision: next}})
		if err != nil {
			return domain.ControllerRevision{}, owned, Unchanged, fmt.Errorf("renumber revision %s: %w", name, err)
		}
		out := append(slices.Delete(slices.Clone(owned), i, i+1), rev)
		return rev, out, Renumbered, nil
	}
	c, err := create(next)
	if err != nil {
		return domain.ControllerRevision{}, owned, Unchanged, err
	}
	rev, err := cmds.Execute(ctx, domain.Key{Namespace: c.Meta.Namespace, Name: c.Meta.Name}, c)
	if err != nil {
		return domain.ControllerRevision{}, owned, Unchanged, fmt.Errorf("create revision %s: %w", c.Meta.Name, err)
	}
	return rev, append(slices.Clone(owned), rev), Created, nil
}

// Excess are the oldest of owned (sorted by number) that live does not
// keep, beyond limit of them: those Truncate deletes.
func Excess(owned []domain.ControllerRevision, live func(domain.ControllerRevision) bool, limit int) []domain.ControllerRevision {
	var history []domain.ControllerRevision
	for _, rev := range owned {
		if !live(rev) {
			history = append(history, rev)
		}
	}
	if len(history) <= limit {
		return nil
	}
	return history[:len(history)-max(limit, 0)]
}

// Truncate deletes the oldest of owned (sorted by number) that live does
// not keep, beyond limit of them (Excess), as Kubernetes' controllers
// trim their history; it returns the names of those deleted.
func Truncate(ctx context.Context, cmds Commands, owned []domain.ControllerRevision, live func(domain.ControllerRevision) bool, limit int) ([]string, error) {
	var deleted []string
	var errs []error
	for _, rev := range Excess(owned, live, limit) {
		_, err := cmds.Execute(ctx, rev.Key(), domain.Precondition[domain.ControllerRevisionCommand]{ResourceVersion: rev.ResourceVersion, Command: domain.DeleteControllerRevision{}})
		if err != nil && !errors.Is(err, domain.ErrNotFound) {
			errs = append(errs, fmt.Errorf("delete revision %s: %w", rev.Name, err))
			continue
		}
		deleted = append(deleted, rev.Name)
	}
	return deleted, errors.Join(errs...)
}
