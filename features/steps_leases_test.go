package features

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"time"

	"github.com/cucumber/godog"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// leasePath is a node's lease in kube-node-lease.
func leasePath(node string) string {
	return "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases/" + url.PathEscape(node)
}

func (w *world) registerLeaseSteps(sc *godog.ScenarioContext) {
	sc.Step(`^the kubelet of "([^"]+)" creates its lease$`, w.createsLease)
	sc.Step(`^"([^"]+)" renews its lease every (\d+) seconds for (\d+) seconds$`, w.renewsLease)
	sc.Step(`^the lease of "([^"]+)" was last renewed at (\S+)$`, w.leaseRenewedAt)
}

// kubeletLease is the lease a kubelet writes for node: held by it for
// 40 seconds, renewed now, as JSON.
func (w *world) kubeletLease(node string) ([]byte, error) {
	holder, d := node, int32(40)
	now := metav1.NewMicroTime(w.clock.Now())
	return json.Marshal(coordinationv1.Lease{
		TypeMeta:   metav1.TypeMeta{Kind: "Lease", APIVersion: "coordination.k8s.io/v1"},
		ObjectMeta: metav1.ObjectMeta{Name: node, Namespace: "kube-node-lease"},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: &holder, LeaseDurationSeconds: &d, RenewTime: &now},
	})
}

// createsLease is what a kubelet does first: its lease, held by its node
// for 40 seconds, renewed now.
func (w *world) createsLease(node string) error {
	body, err := w.kubeletLease(node)
	if err != nil {
		return err
	}
	return w.mustWrite(http.MethodPost, "/apis/coordination.k8s.io/v1/namespaces/kube-node-lease/leases", "application/json", body)
}

// renewsLease is a kubelet renewing its lease as it does: read it, set
// renewTime to now, write it back, every period, while herd's clock moves.
func (w *world) renewsLease(node string, every, total int) error {
	period := time.Duration(every) * time.Second
	for elapsed := period; elapsed <= time.Duration(total)*time.Second; elapsed += period {
		if err := w.setClock(w.clock.Now().Add(period)); err != nil {
			return err
		}
		var l coordinationv1.Lease
		if err := w.get(leasePath(node), &l); err != nil {
			return err
		}
		now := metav1.NewMicroTime(w.clock.Now())
		l.Spec.RenewTime = &now
		body, err := json.Marshal(l)
		if err != nil {
			return err
		}
		if err := w.mustWrite(http.MethodPut, leasePath(node), "application/json", body); err != nil {
			return fmt.Errorf("the renewal after %s: %w", elapsed, err)
		}
	}
	return nil
}

func (w *world) leaseRenewedAt(node, at string) error {
	want, err := w.at(at)
	if err != nil {
		return err
	}
	var l coordinationv1.Lease
	if err := w.get(leasePath(node), &l); err != nil {
		return err
	}
	if l.Spec.RenewTime == nil || !l.Spec.RenewTime.Time.Equal(want) {
		return fmt.Errorf("the lease of %s was last renewed at %v, want %s", node, l.Spec.RenewTime, w.show(want))
	}
	return nil
}
