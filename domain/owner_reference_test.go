package domain

import "testing"

// TestControllersBlockOwnerDeletion: the references herd's controllers
// write on what they create or adopt name the controller and block its
// deletion in the foreground, as Kubernetes' controllers' do
// (controller_ref_manager's NewControllerRef).
func TestControllersBlockOwnerDeletion(t *testing.T) {
	for _, tc := range []struct {
		name string
		ref  OwnerReference
	}{
		{"ReplicaSet", ReplicaSet{ObjectMeta: ObjectMeta{Name: "web-1", UID: "u"}}.OwnerReference()},
		{"Deployment", Deployment{ObjectMeta: ObjectMeta{Name: "web", UID: "u"}}.OwnerReference()},
		{"Job", Job{Object: Object[JobSpec, JobStatus]{ObjectMeta: ObjectMeta{Name: "pi", UID: "u"}}}.OwnerReference()},
		{"DaemonSet", DaemonSet{Object: Object[DaemonSetSpec, DaemonSetStatus]{ObjectMeta: ObjectMeta{Name: "logs", UID: "u"}}}.OwnerReference()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if !tc.ref.Controller || !tc.ref.BlockOwnerDeletion || tc.ref.Kind != tc.name || tc.ref.UID != "u" {
				t.Errorf("reference %+v; want the %s as controller, blocking its deletion", tc.ref, tc.name)
			}
		})
	}
}
