Feature: Pods run as zones on an illumos host
  On illumos, herd runs each pod as a zone of its own: a VNIC with the
  pod's address, a ZFS dataset under the storage pool, and a zone
  configured from the pod — its brand (lx installed from its image, the
  native sparse brand, or one the host adds), CPU and memory caps, and
  volumes — made with dladm, zfs, zonecfg and zoneadm. Deleting the pod
  shuts its zone down, halts it if the grace period runs out first, and
  removes everything. Every name derives from the pod, so a herd that went
  down halfway through resumes where it stopped and never makes a second
  zone or VNIC. A zone that vanishes or stops behind herd's back fails its
  pod.

  Here herd runs its own host as a node (herd serve --local-node zone-01
  --runtime illumos) on a simulated illumos host, which keeps zones, links
  and datasets as the real commands do and shows what herd ran. In the
  scripts, ZONE, VNIC and GATEWAY stand for the pod's zone, its VNIC and
  the VNIC that holds its pool's gateway (names derived from the pod).

  Background:
    Given herd is running and the time is 2026-03-01 09:00:00
    And herd runs its own host as node "zone-01", its pods as zones

  Scenario: An lx pod is a zone installed from its image, with its address, its caps and a volume
    When pod "web" runs on "zone-01", with:
      """
      metadata:
        annotations:
          herd.dev/zone-brand: lx
          herd.dev/zone-image: ubuntu-24.04.tar.xz
          herd.dev/zone-volumes: '[{"name":"data","mountPath":"/var/lib/data","persistent":true,"sizeBytes":10737418240}]'
      spec:
        containers:
        - name: app
          image: busybox
          resources: {limits: {cpu: 1500m, memory: 512Mi}}
      """
    Then pod "web" runs with IP "10.88.0.2"
    And the host ran, for the zone of pod "web":
      """
      dladm create-vnic -l herdstub0 GATEWAY
      ipadm create-if GATEWAY
      ipadm create-addr -T static -a 10.88.0.1/16 GATEWAY/herd
      dladm create-vnic -l herdstub0 VNIC
      zfs create rpool/herd/zones/ZONE
      chmod 700 /rpool/herd/zones/ZONE
      zfs create -p -o quota=10G rpool/herd/persistent/default/data
      zonecfg -z ZONE -f /dev/stdin
      zoneadm -z ZONE install -s /var/lib/herd/images/ubuntu-24.04.tar.xz
      zoneadm -z ZONE boot
      """
    And the zone of pod "web" was configured with:
      """
      create -b
      set brand=lx
      set zonepath=/rpool/herd/zones/ZONE
      set autoboot=false
      set ip-type=exclusive
      add net
      set physical=VNIC
      set allowed-address=10.88.0.2/16
      set defrouter=10.88.0.1
      end
      add capped-cpu
      set ncpus=1.50
      end
      add capped-memory
      set physical=512M
      set swap=512M
      end
      add fs
      set dir=/var/lib/data
      set special=/rpool/herd/persistent/default/data
      set type=lofs
      end
      add attr
      set name=kernel-version
      set type=string
      set value=4.4
      end
      add attr
      set name=herd-pod
      set type=string
      set value=default/web
      end
      add attr
      set name=herd-uid
      set type=string
      set value=UID
      end
      verify
      commit
      """

  Scenario: A pod that names no brand is a sparse zone of the host's own packages, uncapped without limits
    Given pod "db" runs as a zone on "zone-01"
    When pod "web" runs on "zone-01"
    Then pod "web" runs with IP "10.88.0.3"
    And the host ran, for the zone of pod "web":
      """
      dladm create-vnic -l herdstub0 VNIC
      zfs create rpool/herd/zones/ZONE
      chmod 700 /rpool/herd/zones/ZONE
      zonecfg -z ZONE -f /dev/stdin
      zoneadm -z ZONE install
      zoneadm -z ZONE boot
      """
    And the zone of pod "web" was configured with:
      """
      create -b
      set brand=sparse
      set zonepath=/rpool/herd/zones/ZONE
      set autoboot=false
      set ip-type=exclusive
      add net
      set physical=VNIC
      set allowed-address=10.88.0.3/16
      set defrouter=10.88.0.1
      end
      add attr
      set name=herd-pod
      set type=string
      set value=default/web
      end
      add attr
      set name=herd-uid
      set type=string
      set value=UID
      end
      verify
      commit
      """

  Scenario: A brand the host adds installs from the image the pod names
    When pod "build" runs on "zone-01", with:
      """
      metadata:
        annotations:
          herd.dev/zone-brand: pkgsrc
          herd.dev/zone-image: /images/pkgsrc-2025Q4.tar.gz
      """
    Then the host ran, for the zone of pod "build":
      """
      dladm create-vnic -l herdstub0 GATEWAY
      ipadm create-if GATEWAY
      ipadm create-addr -T static -a 10.88.0.1/16 GATEWAY/herd
      dladm create-vnic -l herdstub0 VNIC
      zfs create rpool/herd/zones/ZONE
      chmod 700 /rpool/herd/zones/ZONE
      zonecfg -z ZONE -f /dev/stdin
      zoneadm -z ZONE install -s /images/pkgsrc-2025Q4.tar.gz
      zoneadm -z ZONE boot
      """

  Scenario: A brand the host does not run fails the pod before anything is made
    When a client creates pod "web" with:
      """
      spec:
        nodeName: zone-01
      metadata:
        annotations:
          herd.dev/zone-brand: bhyve
      """
    Then pod "web" failed with reason ProvisionFailed: "pod default/web: brand "bhyve" is not one this host runs (lx, sparse, pkgsrc): pod cannot run on this host"
    And the host has nothing left of pod "web"

  Scenario: A zone that shuts down inside its grace period is removed with everything it had
    Given pod "web" runs as a zone on "zone-01"
    When a client deletes pod "web"
    Then pod "web" is gone
    And the host ran, for the zone of pod "web":
      """
      zoneadm -z ZONE shutdown
      zoneadm -z ZONE uninstall -F
      zonecfg -z ZONE delete -F
      dladm delete-vnic VNIC
      zfs destroy -r rpool/herd/zones/ZONE
      """
    And the host has nothing left of pod "web"
    And the log of pod "web" shows, in order:
      | event                | at       | reason     |
      | PodCreated           | 09:00:00 |            |
      | PodScheduled         | 09:00:00 |            |
      | PodIPAssigned        | 09:00:00 |            |
      | PodStatusUpdated     | 09:00:00 |            |
      | PodDeletionRequested | 09:00:00 |            |
      | PodShutdownRequested | 09:00:00 |            |
      | PodStopped           | 09:00:00 |            |
      | PodDeprovisioned     | 09:00:00 |            |
      | PodFinalized         | 09:00:00 | Terminated |

  Scenario: A zone that ignores its shutdown is halted when the grace period runs out
    Given pod "web" runs as a zone on "zone-01"
    And the zone of pod "web" ignores shutdown
    When a client deletes pod "web"
    And 29 seconds pass
    Then pod "web" is terminating
    When 1 second passes
    Then pod "web" is gone
    And the host ran, for the zone of pod "web":
      """
      zoneadm -z ZONE shutdown
      zoneadm -z ZONE halt
      zoneadm -z ZONE uninstall -F
      zonecfg -z ZONE delete -F
      dladm delete-vnic VNIC
      zfs destroy -r rpool/herd/zones/ZONE
      """
    And the log of pod "web" shows, in order:
      | event                | at       | reason     |
      | PodCreated           | 09:00:00 |            |
      | PodScheduled         | 09:00:00 |            |
      | PodIPAssigned        | 09:00:00 |            |
      | PodStatusUpdated     | 09:00:00 |            |
      | PodDeletionRequested | 09:00:00 |            |
      | PodShutdownRequested | 09:00:00 |            |
      | PodHalted            | 09:00:30 |            |
      | PodStopped           | 09:00:30 |            |
      | PodDeprovisioned     | 09:00:30 |            |
      | PodFinalized         | 09:00:30 | Terminated |

  Scenario: A zone deleted behind herd's back fails its pod at the next check
    Given pod "web" runs as a zone on "zone-01"
    When an operator deletes the zone of pod "web" behind herd's back
    And 30 seconds pass
    Then pod "web" failed with reason RuntimeVanished: "node zone-01's runtime no longer holds the pod: it vanished while running"
    And pod "web" has condition Ready=False with reason "RuntimeVanished"

  Scenario: A zone halted behind herd's back fails its pod at the next check
    Given pod "web" runs as a zone on "zone-01"
    When an operator halts the zone of pod "web" behind herd's back
    And 30 seconds pass
    Then pod "web" failed with reason RuntimeStopped: "the runtime reports the pod stopped, and nobody asked it to"

  Scenario: herd that goes down halfway through provisioning resumes, and never makes a second zone or VNIC
    When herd goes down while it installs the zone of pod "web", created on "zone-01" with:
      """
      metadata:
        annotations:
          herd.dev/zone-brand: lx
          herd.dev/zone-image: ubuntu-24.04.tar.xz
      """
    Then pod "web" runs with IP "10.88.0.2"
    And the host has exactly one zone and one VNIC for pod "web", and the zone is running
    And the host ran, for the zone of pod "web":
      """
      dladm create-vnic -l herdstub0 GATEWAY
      ipadm create-if GATEWAY
      ipadm create-addr -T static -a 10.88.0.1/16 GATEWAY/herd
      dladm create-vnic -l herdstub0 VNIC
      zfs create rpool/herd/zones/ZONE
      chmod 700 /rpool/herd/zones/ZONE
      zonecfg -z ZONE -f /dev/stdin
      zoneadm -z ZONE install -s /var/lib/herd/images/ubuntu-24.04.tar.xz
      chmod 700 /rpool/herd/zones/ZONE
      zoneadm -z ZONE uninstall -F
      zoneadm -z ZONE install -s /var/lib/herd/images/ubuntu-24.04.tar.xz
      zoneadm -z ZONE boot
      """
    And the log holds 1 "PodStatusUpdated" event
