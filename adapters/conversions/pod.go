package conversions

import (
	"encoding/json"
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"herd/domain"
)

// Annotations that carry herd's zone extension on a Pod: an illumos host
// runs the pod as a zone of this brand, installed from this image, with
// these datasets mounted.
const (
	AnnotationZoneBrand   = "herd.dev/zone-brand"
	AnnotationZoneImage   = "herd.dev/zone-image"
	AnnotationZoneVolumes = "herd.dev/zone-volumes"
)

// PodToAPI renders a pod as a Kubernetes Pod.
func PodToAPI(p domain.Pod) corev1.Pod {
	out := corev1.Pod{
		TypeMeta: metav1.TypeMeta{Kind: "Pod", APIVersion: "v1"},
		ObjectMeta: metav1.ObjectMeta{
			Name:              p.Name,
			Namespace:         p.Namespace,
			UID:               types.UID(p.UID),
			ResourceVersion:   fmt.Sprint(p.ResourceVersion),
			Generation:        1,
			CreationTimestamp: metav1.NewTime(p.CreatedAt),
			Labels:            p.Labels,
			Annotations:       podAnnotations(p),
			Finalizers:        p.Finalizers,
		},
		Spec: PodSpecToAPI(p.Spec),
		Status: corev1.PodStatus{
			Phase:   corev1.PodPhase(p.Status.Phase),
			PodIP:   p.Status.PodIP,
			HostIP:  p.Status.HostIP,
			Reason:  p.Status.Reason,
			Message: p.Status.Message,
		},
	}
	if p.Observed() {
		out.Spec.SchedulerName = ""
	}
	out.OwnerReferences = ownersToAPI(p.Owners)
	if d := p.Deletion; d != nil {
		// Kubernetes' deletionTimestamp is when the object is to go: the
		// grace deadline, not the time of the request.
		out.DeletionTimestamp = ptrTo(metav1.NewTime(d.Deadline))
		out.DeletionGracePeriodSeconds = ptrTo(d.GracePeriodSeconds)
	}
	if !p.Status.StartTime.IsZero() {
		out.Status.StartTime = ptrTo(metav1.NewTime(p.Status.StartTime))
	}
	if p.Status.PodIP != "" {
		out.Status.PodIPs = []corev1.PodIP{{IP: p.Status.PodIP}}
	}
	if p.Status.HostIP != "" {
		out.Status.HostIPs = []corev1.HostIP{{IP: p.Status.HostIP}}
	}
	for _, c := range p.Status.Conditions {
		out.Status.Conditions = append(out.Status.Conditions, corev1.PodCondition{
			Type: corev1.PodConditionType(c.Type), Status: corev1.ConditionStatus(c.Status),
			Reason: c.Reason, Message: c.Message, LastTransitionTime: metav1.NewTime(c.LastTransitionTime),
		})
	}
	for _, cs := range p.Status.ContainerStatuses {
		out.Status.ContainerStatuses = append(out.Status.ContainerStatuses, corev1.ContainerStatus{
			Name: cs.Name, Image: cs.Image, Ready: cs.Ready, RestartCount: cs.RestartCount,
			State: toContainerState(cs.State), LastTerminationState: toContainerState(cs.LastState),
		})
	}
	return out
}

// PodSpecToAPI renders a pod's spec — the one a pod has, or the one a
// workload's template gives its pods — as Kubernetes prints it: what
// herd acts on, over the rest as the client wrote it (Unmodeled), with
// Kubernetes' defaults for what herd decides itself (the scheduler) or
// keeps as none (the restart policy Always). The zone travels in
// annotations (zoneAnnotations).
func PodSpecToAPI(s domain.PodSpec) corev1.PodSpec {
	var out corev1.PodSpec
	unmodeledInto(s.Unmodeled, &out)
	grace := s.TerminationGracePeriodSeconds
	out.NodeName, out.NodeSelector, out.TerminationGracePeriodSeconds = s.NodeName, s.NodeSelector, &grace
	out.RestartPolicy, out.SchedulerName = corev1.RestartPolicyAlways, corev1.DefaultSchedulerName
	if s.RestartPolicy != "" {
		out.RestartPolicy = corev1.RestartPolicy(s.RestartPolicy)
	}
	for _, t := range s.Tolerations {
		out.Tolerations = append(out.Tolerations, corev1.Toleration{
			Key: t.Key, Operator: corev1.TolerationOperator(t.Operator), Value: t.Value,
			Effect: corev1.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds,
		})
	}
	for _, c := range s.Containers {
		var k corev1.Container
		unmodeledInto(c.Unmodeled, &k)
		k.Name, k.Image, k.Command, k.Args = c.Name, c.Image, c.Command, c.Args
		k.Resources.Requests, k.Resources.Limits = toResourceList(c.Requests), toResourceList(c.Limits)
		out.Containers = append(out.Containers, k)
	}
	return out
}

// zoneAnnotations are annotations plus the zone extension z, when there
// is one.
func zoneAnnotations(annotations map[string]string, z *domain.ZoneSpec) map[string]string {
	if z == nil {
		return annotations
	}
	out := make(map[string]string, len(annotations)+3)
	for k, v := range annotations {
		out[k] = v
	}
	if z.Brand != "" {
		out[AnnotationZoneBrand] = z.Brand
	}
	if z.Image != "" {
		out[AnnotationZoneImage] = z.Image
	}
	if len(z.Volumes) > 0 {
		raw, _ := json.Marshal(z.Volumes)
		out[AnnotationZoneVolumes] = string(raw)
	}
	return out
}

func toContainerState(s domain.ContainerState) corev1.ContainerState {
	var out corev1.ContainerState
	if w := s.Waiting; w != nil {
		out.Waiting = &corev1.ContainerStateWaiting{Reason: w.Reason, Message: w.Message}
	}
	if r := s.Running; r != nil {
		out.Running = &corev1.ContainerStateRunning{StartedAt: metav1.NewTime(r.StartedAt)}
	}
	if t := s.Terminated; t != nil {
		out.Terminated = &corev1.ContainerStateTerminated{
			ExitCode: t.ExitCode, Reason: t.Reason, Message: t.Message,
			StartedAt: metav1.NewTime(t.StartedAt), FinishedAt: metav1.NewTime(t.FinishedAt),
		}
	}
	return out
}

// CreatePodFromAPI reads a Pod a client posted into the create command. The
// namespace comes from the request path; herd's zone annotations become
// the zone spec.
func CreatePodFromAPI(in corev1.Pod, uid string) (domain.CreatePod, error) {
	c := domain.CreatePod{
		Namespace:                     in.Namespace,
		Name:                          in.Name,
		UID:                           uid,
		Labels:                        in.Labels,
		Annotations:                   WithoutHerdKeys(in.Annotations),
		Finalizers:                    in.Finalizers,
		TerminationGracePeriodSeconds: in.Spec.TerminationGracePeriodSeconds,
		Owners:                        OwnersFromAPI(in.OwnerReferences),
		Spec:                          PodSpecFromAPI(in.Spec),
	}
	zone, err := zoneFromAnnotations(in.Annotations)
	c.Spec.Zone = zone
	return c, err
}

// PodSpecFromAPI reads a Kubernetes pod spec: what herd acts on (node,
// node selector, restart policy, tolerations, containers with their
// commands and resources), and the rest as written (Unmodeled). The
// grace period and the zone are left to the caller, which knows their
// defaults.
func PodSpecFromAPI(in corev1.PodSpec) domain.PodSpec {
	out := domain.PodSpec{NodeName: in.NodeName, NodeSelector: in.NodeSelector, Unmodeled: unmodeled(in, modeledPodSpec)}
	if in.RestartPolicy != corev1.RestartPolicyAlways {
		// Always, the default, is kept as none, as herd kept every pod
		// before it kept restart policies.
		out.RestartPolicy = domain.RestartPolicy(in.RestartPolicy)
	}
	for _, t := range in.Tolerations {
		out.Tolerations = append(out.Tolerations, domain.Toleration{
			Key: t.Key, Operator: string(t.Operator), Value: t.Value,
			Effect: domain.TaintEffect(t.Effect), TolerationSeconds: t.TolerationSeconds,
		})
	}
	for _, k := range in.Containers {
		out.Containers = append(out.Containers, domain.Container{
			Name: k.Name, Image: k.Image, Command: k.Command, Args: k.Args,
			Requests: ResourcesFromAPI(k.Resources.Requests), Limits: ResourcesFromAPI(k.Resources.Limits),
			Unmodeled: unmodeled(k, modeledContainer),
		})
	}
	return out
}

// OwnersFromAPI reads a Kubernetes object's ownerReferences.
func OwnersFromAPI(in []metav1.OwnerReference) []domain.OwnerReference {
	var out []domain.OwnerReference
	for _, o := range in {
		out = append(out, domain.OwnerReference{
			APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: string(o.UID),
			Controller:         o.Controller != nil && *o.Controller,
			BlockOwnerDeletion: o.BlockOwnerDeletion != nil && *o.BlockOwnerDeletion,
		})
	}
	return out
}

// ownersToAPI renders an object's owner references.
func ownersToAPI(owners []domain.OwnerReference) []metav1.OwnerReference {
	var out []metav1.OwnerReference
	for _, o := range owners {
		ref := metav1.OwnerReference{APIVersion: o.APIVersion, Kind: o.Kind, Name: o.Name, UID: types.UID(o.UID)}
		if o.Controller {
			ref.Controller = ptrTo(true)
		}
		if o.BlockOwnerDeletion {
			ref.BlockOwnerDeletion = ptrTo(true)
		}
		out = append(out, ref)
	}
	return out
}

// zoneFromAnnotations reads herd's zone extension; nil when there is none.
func zoneFromAnnotations(a map[string]string) (*domain.ZoneSpec, error) {
	brand, image, vols := a[AnnotationZoneBrand], a[AnnotationZoneImage], a[AnnotationZoneVolumes]
	if brand == "" && image == "" && vols == "" {
		return nil, nil
	}
	z := &domain.ZoneSpec{Brand: brand, Image: image}
	if vols != "" {
		dec := json.NewDecoder(strings.NewReader(vols))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&z.Volumes); err != nil {
			return nil, fmt.Errorf("annotation %s: want a JSON list of {name, mountPath, persistent, sizeBytes}: %w", AnnotationZoneVolumes, err)
		}
	}
	return z, nil
}

// PodStatusFromAPI reads a status a client, a runtime or a kubelet
// reported; times in UTC.
func PodStatusFromAPI(in corev1.PodStatus) domain.PodStatus {
	out := domain.PodStatus{
		Phase: domain.PodPhase(in.Phase), PodIP: in.PodIP, HostIP: in.HostIP,
		Reason: in.Reason, Message: in.Message,
	}
	if in.StartTime != nil {
		out.StartTime = in.StartTime.UTC()
	}
	for _, c := range in.Conditions {
		out.Conditions = append(out.Conditions, domain.PodCondition{
			Type: domain.PodConditionType(c.Type), Status: domain.ConditionStatus(c.Status),
			Reason: c.Reason, Message: c.Message,
		})
	}
	for _, cs := range in.ContainerStatuses {
		out.ContainerStatuses = append(out.ContainerStatuses, domain.ContainerStatus{
			Name: cs.Name, Image: cs.Image, Ready: cs.Ready, RestartCount: cs.RestartCount,
			State: fromContainerState(cs.State), LastState: fromContainerState(cs.LastTerminationState),
		})
	}
	return out
}

func fromContainerState(in corev1.ContainerState) domain.ContainerState {
	var out domain.ContainerState
	if w := in.Waiting; w != nil {
		out.Waiting = &domain.ContainerWaiting{Reason: w.Reason, Message: w.Message}
	}
	if r := in.Running; r != nil {
		out.Running = &domain.ContainerRunning{StartedAt: r.StartedAt.UTC()}
	}
	if t := in.Terminated; t != nil {
		out.Terminated = &domain.ContainerTerminated{
			ExitCode: t.ExitCode, Reason: t.Reason, Message: t.Message,
			StartedAt: t.StartedAt.UTC(), FinishedAt: t.FinishedAt.UTC(),
		}
	}
	return out
}

func ptrTo[T any](v T) *T { return &v }
