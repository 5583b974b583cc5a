package statefulset

import (
	"testing"

	"go.uber.org/zap"

	"herd/adapters/conversions"
	"herd/domain"
	"herd/projections"
	"herd/reconcilers/reconcilerstest"
)

// TestARevisionDeletedByHandIsMadeAgainAtOnce: the revision of a
// StatefulSet an operator deletes reaches the StatefulSet through the log
// and is made again at once, not at the next resync
// (reconcilerstest.RevisionComesBackAtOnce).
func TestARevisionDeletedByHandIsMadeAgainAtOnce(t *testing.T) {
	env := reconcilerstest.New(t)
	codec := RevisionFuncs{DataOf: conversions.StatefulSetRevisionData, TemplateOf: conversions.StatefulSetRevisionTemplate}
	r := New(projections.NewStatefulSetView(env.Log), env.Pods, env.Writer.StatefulSetCommands(), env.Writer.PodCommands(),
		Revisions{Reader: projections.NewControllerRevisionView(env.Log), Cmds: env.Writer.ControllerRevisionCommands(), Codec: codec},
		env.Clock, zap.NewNop())
	reconcilerstest.RevisionComesBackAtOnce(t, env, r, func() string {
		spec := domain.StatefulSetSpec{Replicas: 0, ServiceName: "web",
			Selector: domain.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: domain.PodTemplate{Labels: map[string]string{"app": "web"},
				Spec: domain.PodSpec{Containers: []domain.Container{{Name: "web", Image: "nginx:1"}}}}}
		s, err := env.Writer.StatefulSetCommands().Execute(t.Context(), webKey,
			domain.CreateStatefulSet{Meta: domain.ObjectMeta{Namespace: "default", Name: "web", UID: "uid-web"}, Spec: spec})
		if err != nil {
			t.Fatal(err)
		}
		return Revision(s)
	})
}
