package conversions

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"

	"herd/domain"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/ from what the code produces")

// The conversions of the kinds on the object model give, for objects
// with every field set, exactly what testdata/*.golden.json hold: API
// objects out of domain objects, the create a body asks for, the status
// a controller writes, and the refusals of bodies with their field
// paths. A conversion written another way (by hand or derived) must
// keep them.
func TestKindConversionsKeepTheirOutput(t *testing.T) {
	sts := filled[domain.StatefulSet](t)
	cj := filled[domain.CronJob](t)
	cj.Spec.JobTemplate.Spec.Selector = domain.LabelSelector{}
	deploy := filled[domain.Deployment](t)
	deploy.Spec.Strategy.Type = domain.RollingUpdateStrategy
	onDelete := sts
	onDelete.Spec.UpdateStrategy = domain.StatefulSetUpdateStrategy{Type: domain.StatefulSetOnDelete}
	recreate := deploy
	recreate.Spec.Strategy = domain.DeploymentStrategy{Type: "Recreate"}
	noStatus := deploy
	noStatus.Status = domain.DeploymentStatus{}

	for name, got := range map[string]any{
		"statefulset_to_api":           StatefulSetToAPI(sts),
		"statefulset_ondelete_to_api":  StatefulSetToAPI(onDelete),
		"statefulset_zero_to_api":      StatefulSetToAPI(domain.StatefulSet{}),
		"statefulset_from_api":         result(StatefulSetFromAPI(apiStatefulSet(t))),
		"statefulset_minimal_from_api": result(StatefulSetFromAPI(minimal(apiStatefulSet(t)))),
		"statefulset_refused_from_api": result(StatefulSetFromAPI(refusedStatefulSet(t))),
		"statefulset_status_from_api":  StatefulSetStatusFromAPI(filled[appsv1.StatefulSetStatus](t)),
		"statefulset_scale_to_api":     StatefulSetScaleToAPI(sts),
		"cronjob_to_api":               CronJobToAPI(cj),
		"cronjob_zero_to_api":          CronJobToAPI(domain.CronJob{}),
		"cronjob_from_api":             result(CronJobFromAPI(apiCronJob(t))),
		"cronjob_minimal_from_api":     result(CronJobFromAPI(minimalCronJob(apiCronJob(t)))),
		"cronjob_refused_from_api":     result(CronJobFromAPI(refusedCronJob(t))),
		"cronjob_status_from_api":      CronJobStatusFromAPI(filled[batchv1.CronJobStatus](t)),
		"deployment_to_api":            DeploymentToAPI(deploy),
		"deployment_recreate_to_api":   DeploymentToAPI(recreate),
		"deployment_nostatus_to_api":   DeploymentToAPI(noStatus),
		"deployment_from_api":          result(DeploymentFromAPI(apiDeployment(t))),
		"deployment_minimal_from_api":  result(DeploymentFromAPI(minimalDeployment(apiDeployment(t)))),
		"deployment_refused_from_api":  result(DeploymentFromAPI(refusedDeployment(t))),
		"deployment_status_from_api":   DeploymentStatusFromAPI(filled[appsv1.DeploymentStatus](t)),
	} {
		t.Run(name, func(t *testing.T) { golden(t, name, got) })
	}
}

// golden compares got, as indented JSON, with testdata/NAME.golden.json
// (or, with -update, writes it there).
func golden(t *testing.T, name string, got any) {
	t.Helper()
	data, err := json.MarshalIndent(got, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	data = append(data, '\n')
	path := filepath.Join("testdata", name+".golden.json")
	if *update {
		if err := os.WriteFile(path, data, 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if string(data) != string(want) {
		t.Errorf("%s differs from %s:\n%s", name, path, data)
	}
}

// result is a conversion's answer, its value or its error, as one
// value to compare.
func result[T any](v T, err error) any {
	if err != nil {
		return map[string]string{"error": err.Error()}
	}
	return v
}

// filled is a T with every field set to a value of its own, not zero:
// strings name their field, numbers count up, pointers, slices and maps
// hold one filled element.
func filled[T any](t testing.TB) T {
	t.Helper()
	var out T
	n := 0
	fill(reflect.ValueOf(&out).Elem(), "", &n)
	return out
}

var (
	timeType     = reflect.TypeFor[time.Time]()
	metaTimeType = reflect.TypeFor[metav1.Time]()
	base         = time.Date(2026, 12, 1, 6, 0, 0, 0, time.UTC)
)

func fill(v reflect.Value, name string, n *int) {
	*n++
	switch {
	case v.Type() == timeType:
		v.Set(reflect.ValueOf(base.Add(time.Duration(*n) * time.Minute)))
		return
	case v.Type() == metaTimeType:
		v.Set(reflect.ValueOf(metav1.NewTime(base.Add(time.Duration(*n) * time.Minute))))
		return
	}
	switch v.Kind() {
	case reflect.String:
		v.SetString(fmt.Sprintf("%s-%d", name, *n))
	case reflect.Bool:
		v.SetBool(true)
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64:
		v.SetInt(int64(*n))
	case reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		v.SetUint(uint64(*n))
	case reflect.Float32, reflect.Float64:
		v.SetFloat(float64(*n))
	case reflect.Pointer:
		p := reflect.New(v.Type().Elem())
		fill(p.Elem(), name, n)
		v.Set(p)
	case reflect.Slice:
		s := reflect.MakeSlice(v.Type(), 1, 1)
		fill(s.Index(0), name, n)
		v.Set(s)
	case reflect.Map:
		m := reflect.MakeMap(v.Type())
		k, e := reflect.New(v.Type().Key()).Elem(), reflect.New(v.Type().Elem()).Elem()
		fill(k, name+"-key", n)
		fill(e, name, n)
		m.SetMapIndex(k, e)
		v.Set(m)
	case reflect.Struct:
		for i := range v.NumField() {
			if f := v.Type().Field(i); f.IsExported() {
				fill(v.Field(i), f.Name, n)
			}
		}
	}
}

func podTemplate() corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}, Annotations: map[string]string{"note": "a"}},
		Spec: corev1.PodSpec{
			Containers:                    []corev1.Container{{Name: "web", Image: "nginx:1", Args: []string{"-g"}}},
			TerminationGracePeriodSeconds: ptr.To[int64](12), NodeSelector: map[string]string{"disk": "ssd"},
		},
	}
}

func objectMeta() metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: "default", Name: "web", UID: "ignored", ResourceVersion: "9",
		Labels: map[string]string{"team": "a"}, Annotations: map[string]string{"note": "b"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "owner-uid", Controller: ptr.To(true)}}}
}

func apiStatefulSet(t testing.TB) appsv1.StatefulSet {
	return appsv1.StatefulSet{
		TypeMeta:   metav1.TypeMeta{Kind: "StatefulSet", APIVersion: "apps/v1"},
		ObjectMeta: objectMeta(),
		Spec: appsv1.StatefulSetSpec{
			Replicas: ptr.To[int32](4), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: podTemplate(), ServiceName: "web-svc", PodManagementPolicy: appsv1.ParallelPodManagement,
			UpdateStrategy: appsv1.StatefulSetUpdateStrategy{Type: appsv1.RollingUpdateStatefulSetStrategyType,
				RollingUpdate: &appsv1.RollingUpdateStatefulSetStrategy{Partition: ptr.To[int32](2), MaxUnavailable: ptr.To(intstr.FromString("50%"))}},
			RevisionHistoryLimit: ptr.To[int32](5), MinReadySeconds: 7,
			Ordinals: &appsv1.StatefulSetOrdinals{Start: 0},
		},
		Status: filled[appsv1.StatefulSetStatus](t),
	}
}

func minimal(in appsv1.StatefulSet) appsv1.StatefulSet {
	in.Spec = appsv1.StatefulSetSpec{Selector: in.Spec.Selector, Template: in.Spec.Template}
	return in
}

func refusedStatefulSet(t *testing.T) appsv1.StatefulSet {
	in := apiStatefulSet(t)
	in.Kind = "Deployment"
	in.Spec.VolumeClaimTemplates = []corev1.PersistentVolumeClaim{{}}
	in.Spec.Ordinals.Start = 3
	in.Spec.Template.Spec.Containers = nil
	return in
}

func apiCronJob(t *testing.T) batchv1.CronJob {
	tmpl := podTemplate()
	tmpl.Spec.RestartPolicy = corev1.RestartPolicyNever
	return batchv1.CronJob{
		TypeMeta:   metav1.TypeMeta{Kind: "CronJob", APIVersion: "batch/v1"},
		ObjectMeta: objectMeta(),
		Spec: batchv1.CronJobSpec{
			Schedule: "*/5 * * * *", TimeZone: ptr.To("Europe/Paris"), StartingDeadlineSeconds: ptr.To[int64](30),
			ConcurrencyPolicy: batchv1.ForbidConcurrent, Suspend: ptr.To(true),
			SuccessfulJobsHistoryLimit: ptr.To[int32](6), FailedJobsHistoryLimit: ptr.To[int32](2),
			JobTemplate: batchv1.JobTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"job": "a"}, Annotations: map[string]string{"note": "c"}},
				Spec: batchv1.JobSpec{Template: tmpl, Parallelism: ptr.To[int32](2), Completions: ptr.To[int32](3),
					BackoffLimit: ptr.To[int32](4), ActiveDeadlineSeconds: ptr.To[int64](100)},
			},
		},
		Status: filled[batchv1.CronJobStatus](t),
	}
}

func minimalCronJob(in batchv1.CronJob) batchv1.CronJob {
	in.Spec = batchv1.CronJobSpec{Schedule: in.Spec.Schedule, JobTemplate: in.Spec.JobTemplate}
	return in
}

func refusedCronJob(t *testing.T) batchv1.CronJob {
	in := apiCronJob(t)
	in.Spec.Schedule = "every day"
	in.Spec.TimeZone = ptr.To("Mars/Olympus")
	in.Spec.JobTemplate.Spec.Template.Spec.Containers = nil
	return in
}

func apiDeployment(t *testing.T) appsv1.Deployment {
	return appsv1.Deployment{
		TypeMeta:   metav1.TypeMeta{Kind: "Deployment", APIVersion: "apps/v1"},
		ObjectMeta: objectMeta(),
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](4), Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: podTemplate(),
			Strategy: appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
				RollingUpdate: &appsv1.RollingUpdateDeployment{MaxSurge: ptr.To(intstr.FromInt32(2)), MaxUnavailable: ptr.To(intstr.FromString("10%"))}},
			MinReadySeconds: 3, RevisionHistoryLimit: ptr.To[int32](4), Paused: true, ProgressDeadlineSeconds: ptr.To[int32](90),
		},
		Status: filled[appsv1.DeploymentStatus](t),
	}
}

func minimalDeployment(in appsv1.Deployment) appsv1.Deployment {
	in.Spec = appsv1.DeploymentSpec{Selector: in.Spec.Selector, Template: in.Spec.Template,
		Strategy: appsv1.DeploymentStrategy{Type: appsv1.RecreateDeploymentStrategyType, RollingUpdate: &appsv1.RollingUpdateDeployment{}}}
	return in
}

func refusedDeployment(t *testing.T) appsv1.Deployment {
	in := apiDeployment(t)
	in.APIVersion = "apps/v2"
	in.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	return in
}
