package domain

// clone returns a deep copy of the spec, empty maps and slices as nil.
func (s PodSpec) clone() PodSpec {
	c := s
	c.NodeSelector = cloneStrings(s.NodeSelector)
	c.Tolerations = nil
	for _, t := range s.Tolerations {
		if t.TolerationSeconds != nil {
			v := *t.TolerationSeconds
			t.TolerationSeconds = &v
		}
		c.Tolerations = append(c.Tolerations, t)
	}
	c.Containers = nil
	for _, k := range s.Containers {
		k.Command = cloneSlice(k.Command)
		k.Args = cloneSlice(k.Args)
		k.Requests = cloneResources(k.Requests)
		k.Limits = cloneResources(k.Limits)
		k.Unmodeled = cloneSlice(k.Unmodeled)
		c.Containers = append(c.Containers, k)
	}
	c.Unmodeled = cloneSlice(s.Unmodeled)
	if s.Zone != nil {
		z := *s.Zone
		z.Volumes = cloneSlice(s.Zone.Volumes)
		c.Zone = &z
	}
	return c
}

// clone returns a deep copy of the status, empty slices as nil.
func (s PodStatus) clone() PodStatus {
	c := s
	c.Conditions = cloneSlice(s.Conditions)
	c.ContainerStatuses = nil
	for _, cs := range s.ContainerStatuses {
		cs.State = cs.State.clone()
		cs.LastState = cs.LastState.clone()
		c.ContainerStatuses = append(c.ContainerStatuses, cs)
	}
	return c
}

func (s ContainerState) clone() ContainerState {
	c := s
	if s.Waiting != nil {
		w := *s.Waiting
		c.Waiting = &w
	}
	if s.Running != nil {
		r := *s.Running
		c.Running = &r
	}
	if s.Terminated != nil {
		t := *s.Terminated
		c.Terminated = &t
	}
	return c
}

// Clone returns a deep copy of the pod.
func (p Pod) Clone() Pod {
	c := p
	c.Labels = cloneStrings(p.Labels)
	c.Annotations = cloneStrings(p.Annotations)
	c.Finalizers = cloneSlice(p.Finalizers)
	c.Owners = cloneSlice(p.Owners)
	c.Spec = p.Spec.clone()
	c.Status = p.Status.clone()
	if p.Deletion != nil {
		d := *p.Deletion
		c.Deletion = &d
	}
	if p.Network != nil {
		n := *p.Network
		c.Network = &n
	}
	return c
}
