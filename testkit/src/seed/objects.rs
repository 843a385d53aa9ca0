//! The objects seeding generates: a realistic Pod, a small ConfigMap and a Deployment,
//! each a template with placeholders for the values that differ between objects.

use serde_json::{Value, json};

use crate::template::{APP, INDEX, NAME, NAMESPACE, RV, TIMESTAMP, Template, UID};

/// Number of distinct `app` label values seeded objects spread over.
pub(crate) const APPS: usize = 10;

/// A template's object with `name`, `namespace` and `index` filled in, and fixed values
/// for what a server would set (uid, resourceVersion `1`, creationTimestamp).
pub(crate) fn fill(template: Value, name: &str, namespace: &str, index: u64) -> Value {
    let app = format!("app-{}", index as usize % APPS);
    let index_text = index.to_string();
    let values = [
        name,
        namespace,
        "6f1c8a52-7d3e-4b8a-9c1e-2f4a6b8d0e13",
        "1",
        "2025-01-01T00:00:00Z",
        index_text.as_str(),
        app.as_str(),
    ];
    let text = Template::compile(&template).render(&values);
    serde_json::from_slice(&text).unwrap_or(Value::Null)
}

/// A realistic Pod (about 11 KB of JSON) as the apiserver returns it, for tests and
/// benchmarks that build objects themselves.
pub fn pod(namespace: &str, name: &str, index: u64) -> Value {
    fill(pod_template(), name, namespace, index)
}

/// A small ConfigMap.
pub fn config_map(namespace: &str, name: &str, index: u64) -> Value {
    fill(config_map_template(), name, namespace, index)
}

/// A Deployment with status and managedFields.
pub fn deployment(namespace: &str, name: &str, index: u64) -> Value {
    fill(deployment_template(), name, namespace, index)
}

pub(super) fn config_map_template() -> Value {
    json!({
        "apiVersion": "v1",
        "kind": "ConfigMap",
        "metadata": {
            "name": NAME, "namespace": NAMESPACE, "uid": UID, "resourceVersion": RV,
            "creationTimestamp": TIMESTAMP,
            "labels": {"app": APP, "index": INDEX},
        },
        "data": {
            "app.properties": "log.level=info\nserver.port=8080\nfeature.flags=a,b,c\n",
            "index": INDEX,
            "owner": "team-platform",
        },
    })
}

fn container(name: &str, image: &str, port: u16) -> Value {
    json!({
        "name": name,
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "args": ["--port", port.to_string(), "--log-format=json", "--metrics-bind-address=:9090"],
        "env": [
            {"name": "POD_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.name"}}},
            {"name": "POD_NAMESPACE", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}},
            {"name": "POD_IP", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "status.podIP"}}},
            {"name": "NODE_NAME", "valueFrom": {"fieldRef": {"apiVersion": "v1", "fieldPath": "spec.nodeName"}}},
            {"name": "GOMAXPROCS", "valueFrom": {"resourceFieldRef": {"containerName": name, "divisor": "1", "resource": "limits.cpu"}}},
            {"name": "DATABASE_URL", "valueFrom": {"secretKeyRef": {"name": "db-credentials", "key": "url"}}},
            {"name": "LOG_LEVEL", "value": "info"},
            {"name": "APP_INDEX", "value": INDEX},
            {"name": "OTEL_EXPORTER_OTLP_ENDPOINT", "value": "http://otel-collector.observability.svc:4317"},
        ],
        "envFrom": [{"configMapRef": {"name": "app-config"}}],
        "ports": [
            {"name": "http", "containerPort": port, "protocol": "TCP"},
            {"name": "metrics", "containerPort": 9090, "protocol": "TCP"},
        ],
        "resources": {
            "limits": {"cpu": "500m", "memory": "512Mi"},
            "requests": {"cpu": "100m", "memory": "128Mi"},
        },
        "livenessProbe": {
            "httpGet": {"path": "/healthz", "port": port, "scheme": "HTTP"},
            "initialDelaySeconds": 10, "timeoutSeconds": 1, "periodSeconds": 10, "successThreshold": 1, "failureThreshold": 3,
        },
        "readinessProbe": {
            "httpGet": {"path": "/readyz", "port": port, "scheme": "HTTP"},
            "timeoutSeconds": 1, "periodSeconds": 5, "successThreshold": 1, "failureThreshold": 3,
        },
        "volumeMounts": [
            {"name": "config", "mountPath": "/etc/app", "readOnly": true},
            {"name": "cache", "mountPath": "/var/cache/app"},
            {"name": "kube-api-access-x7k2p", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true},
        ],
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
        "securityContext": {
            "allowPrivilegeEscalation": false, "readOnlyRootFilesystem": true, "runAsNonRoot": true,
            "capabilities": {"drop": ["ALL"]},
        },
    })
}

fn proxy_container(image: &str) -> Value {
    json!({
        "name": "proxy",
        "image": image,
        "imagePullPolicy": "IfNotPresent",
        "args": ["proxy", "sidecar", "--concurrency", "2"],
        "ports": [{"name": "http-envoy-prom", "containerPort": 15090, "protocol": "TCP"}],
        "resources": {"limits": {"cpu": "200m", "memory": "256Mi"}, "requests": {"cpu": "50m", "memory": "64Mi"}},
        "terminationMessagePath": "/dev/termination-log",
        "terminationMessagePolicy": "File",
    })
}

fn container_status(name: &str, image: &str) -> Value {
    json!({
        "name": name,
        "state": {"running": {"startedAt": TIMESTAMP}},
        "lastState": {},
        "ready": true,
        "restartCount": 0,
        "image": image,
        "imageID": format!("{image}@sha256:3f1a9c4e5b6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b"),
        "containerID": "containerd://8c6f0e7d9b4a3c2e1f0a9b8c7d6e5f4a3b2c1d0e9f8a7b6c5d4e3f2a1b0c9d8e",
        "started": true,
        "volumeMounts": [
            {"name": "config", "mountPath": "/etc/app", "readOnly": true, "recursiveReadOnly": "Disabled"},
            {"name": "kube-api-access-x7k2p", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true, "recursiveReadOnly": "Disabled"},
        ],
    })
}

fn condition(kind: &str) -> Value {
    json!({"type": kind, "status": "True", "lastProbeTime": null, "lastTransitionTime": TIMESTAMP})
}

/// The managedFields entry kube-controller-manager leaves on a ReplicaSet's pod.
fn pod_spec_fields() -> Value {
    let container_fields = json!({
        ".": {}, "f:args": {}, "f:env": {".": {}, "k:{\"name\":\"APP_INDEX\"}": {".": {}, "f:name": {}, "f:value": {}},
            "k:{\"name\":\"DATABASE_URL\"}": {".": {}, "f:name": {}, "f:valueFrom": {".": {}, "f:secretKeyRef": {}}},
            "k:{\"name\":\"GOMAXPROCS\"}": {".": {}, "f:name": {}, "f:valueFrom": {".": {}, "f:resourceFieldRef": {}}},
            "k:{\"name\":\"LOG_LEVEL\"}": {".": {}, "f:name": {}, "f:value": {}},
            "k:{\"name\":\"NODE_NAME\"}": {".": {}, "f:name": {}, "f:valueFrom": {".": {}, "f:fieldRef": {}}},
            "k:{\"name\":\"OTEL_EXPORTER_OTLP_ENDPOINT\"}": {".": {}, "f:name": {}, "f:value": {}},
            "k:{\"name\":\"POD_IP\"}": {".": {}, "f:name": {}, "f:valueFrom": {".": {}, "f:fieldRef": {}}},
            "k:{\"name\":\"POD_NAME\"}": {".": {}, "f:name": {}, "f:valueFrom": {".": {}, "f:fieldRef": {}}},
            "k:{\"name\":\"POD_NAMESPACE\"}": {".": {}, "f:name": {}, "f:valueFrom": {".": {}, "f:fieldRef": {}}}},
        "f:envFrom": {}, "f:image": {}, "f:imagePullPolicy": {},
        "f:livenessProbe": {".": {}, "f:failureThreshold": {}, "f:httpGet": {".": {}, "f:path": {}, "f:port": {}, "f:scheme": {}},
            "f:initialDelaySeconds": {}, "f:periodSeconds": {}, "f:successThreshold": {}, "f:timeoutSeconds": {}},
        "f:name": {},
        "f:ports": {".": {}, "k:{\"containerPort\":8080,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}, "f:name": {}, "f:protocol": {}},
            "k:{\"containerPort\":9090,\"protocol\":\"TCP\"}": {".": {}, "f:containerPort": {}, "f:name": {}, "f:protocol": {}}},
        "f:readinessProbe": {".": {}, "f:failureThreshold": {}, "f:httpGet": {".": {}, "f:path": {}, "f:port": {}, "f:scheme": {}},
            "f:periodSeconds": {}, "f:successThreshold": {}, "f:timeoutSeconds": {}},
        "f:resources": {".": {}, "f:limits": {".": {}, "f:cpu": {}, "f:memory": {}}, "f:requests": {".": {}, "f:cpu": {}, "f:memory": {}}},
        "f:securityContext": {".": {}, "f:allowPrivilegeEscalation": {}, "f:capabilities": {".": {}, "f:drop": {}},
            "f:readOnlyRootFilesystem": {}, "f:runAsNonRoot": {}},
        "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {},
        "f:volumeMounts": {".": {}, "k:{\"mountPath\":\"/etc/app\"}": {".": {}, "f:mountPath": {}, "f:name": {}, "f:readOnly": {}},
            "k:{\"mountPath\":\"/var/cache/app\"}": {".": {}, "f:mountPath": {}, "f:name": {}}},
    });
    json!({
        "f:metadata": {
            "f:generateName": {},
            "f:labels": {".": {}, "f:app": {}, "f:index": {}, "f:pod-template-hash": {}, "f:tier": {}},
            "f:annotations": {".": {}, "f:kubectl.kubernetes.io/restartedAt": {}, "f:prometheus.io/port": {}, "f:prometheus.io/scrape": {}},
            "f:ownerReferences": {".": {}, "k:{\"uid\":\"0b7e4f8c-2d1a-4c3b-9e8f-7a6b5c4d3e2f\"}": {}},
        },
        "f:spec": {
            "f:affinity": {".": {}, "f:podAntiAffinity": {".": {}, "f:preferredDuringSchedulingIgnoredDuringExecution": {}}},
            "f:containers": {"k:{\"name\":\"app\"}": container_fields, "k:{\"name\":\"proxy\"}": {".": {}, "f:args": {},
                "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:ports": {}, "f:resources": {}, "f:terminationMessagePath": {},
                "f:terminationMessagePolicy": {}}},
            "f:dnsPolicy": {}, "f:enableServiceLinks": {},
            "f:initContainers": {".": {}, "k:{\"name\":\"migrate\"}": {".": {}, "f:command": {}, "f:image": {}, "f:imagePullPolicy": {},
                "f:name": {}, "f:resources": {}, "f:terminationMessagePath": {}, "f:terminationMessagePolicy": {}}},
            "f:restartPolicy": {}, "f:schedulerName": {}, "f:securityContext": {".": {}, "f:fsGroup": {}, "f:runAsNonRoot": {}},
            "f:serviceAccount": {}, "f:serviceAccountName": {}, "f:terminationGracePeriodSeconds": {},
            "f:topologySpreadConstraints": {".": {}, "k:{\"topologyKey\":\"topology.kubernetes.io/zone\",\"whenUnsatisfiable\":\"ScheduleAnyway\"}": {
                ".": {}, "f:labelSelector": {}, "f:maxSkew": {}, "f:topologyKey": {}, "f:whenUnsatisfiable": {}}},
            "f:volumes": {".": {}, "k:{\"name\":\"cache\"}": {".": {}, "f:emptyDir": {".": {}, "f:sizeLimit": {}}, "f:name": {}},
                "k:{\"name\":\"config\"}": {".": {}, "f:configMap": {".": {}, "f:defaultMode": {}, "f:name": {}}, "f:name": {}}},
        },
    })
}

pub(super) fn pod_template() -> Value {
    let app_image = "registry.example.com/platform/app:v1.42.3";
    let proxy_image = "registry.example.com/platform/envoy-proxy:v1.31.2";
    json!({
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {
            "name": NAME,
            "generateName": "web-7d4b9c8f5-",
            "namespace": NAMESPACE,
            "uid": UID,
            "resourceVersion": RV,
            "creationTimestamp": TIMESTAMP,
            "labels": {"app": APP, "index": INDEX, "pod-template-hash": "7d4b9c8f5", "tier": "backend"},
            "annotations": {
                "kubectl.kubernetes.io/restartedAt": "2025-01-01T00:00:00Z",
                "prometheus.io/port": "9090",
                "prometheus.io/scrape": "true",
            },
            "ownerReferences": [{
                "apiVersion": "apps/v1", "kind": "ReplicaSet", "name": "web-7d4b9c8f5",
                "uid": "0b7e4f8c-2d1a-4c3b-9e8f-7a6b5c4d3e2f", "controller": true, "blockOwnerDeletion": true,
            }],
            "managedFields": [
                {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "v1", "time": TIMESTAMP,
                 "fieldsType": "FieldsV1", "fieldsV1": pod_spec_fields()},
                {"manager": "kubelet", "operation": "Update", "apiVersion": "v1", "time": TIMESTAMP,
                 "fieldsType": "FieldsV1", "subresource": "status", "fieldsV1": {"f:status": {
                    "f:conditions": {"k:{\"type\":\"ContainersReady\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
                        "k:{\"type\":\"Initialized\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
                        "k:{\"type\":\"PodReadyToStartContainers\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}},
                        "k:{\"type\":\"Ready\"}": {".": {}, "f:lastProbeTime": {}, "f:lastTransitionTime": {}, "f:status": {}, "f:type": {}}},
                    "f:containerStatuses": {}, "f:hostIP": {}, "f:hostIPs": {}, "f:initContainerStatuses": {}, "f:phase": {},
                    "f:podIP": {}, "f:podIPs": {".": {}, "k:{\"ip\":\"10.244.1.17\"}": {".": {}, "f:ip": {}}}, "f:startTime": {}}}},
            ],
        },
        "spec": {
            "volumes": [
                {"name": "config", "configMap": {"name": "app-config", "defaultMode": 420}},
                {"name": "cache", "emptyDir": {"sizeLimit": "1Gi"}},
                {"name": "kube-api-access-x7k2p", "projected": {"defaultMode": 420, "sources": [
                    {"serviceAccountToken": {"expirationSeconds": 3607, "path": "token"}},
                    {"configMap": {"name": "kube-root-ca.crt", "items": [{"key": "ca.crt", "path": "ca.crt"}]}},
                    {"downwardAPI": {"items": [{"path": "namespace", "fieldRef": {"apiVersion": "v1", "fieldPath": "metadata.namespace"}}]}},
                ]}},
            ],
            "initContainers": [{
                "name": "migrate", "image": app_image, "command": ["/app", "migrate", "--wait"],
                "imagePullPolicy": "IfNotPresent", "resources": {},
                "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                "volumeMounts": [{"name": "kube-api-access-x7k2p", "mountPath": "/var/run/secrets/kubernetes.io/serviceaccount", "readOnly": true}],
            }],
            "containers": [container("app", app_image, 8080), proxy_container(proxy_image)],
            "restartPolicy": "Always",
            "terminationGracePeriodSeconds": 30,
            "dnsPolicy": "ClusterFirst",
            "serviceAccountName": "web",
            "serviceAccount": "web",
            "nodeName": "worker-node-07.cluster.internal",
            "securityContext": {"runAsNonRoot": true, "fsGroup": 2000},
            "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
                "weight": 100,
                "podAffinityTerm": {"labelSelector": {"matchLabels": {"app": APP}}, "topologyKey": "kubernetes.io/hostname"},
            }]}},
            "schedulerName": "default-scheduler",
            "tolerations": [
                {"key": "node.kubernetes.io/not-ready", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
                {"key": "node.kubernetes.io/unreachable", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 300},
            ],
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "topology.kubernetes.io/zone",
                "whenUnsatisfiable": "ScheduleAnyway", "labelSelector": {"matchLabels": {"app": APP}}}],
            "priority": 0,
            "enableServiceLinks": true,
            "preemptionPolicy": "PreemptLowerPriority",
        },
        "status": {
            "phase": "Running",
            "conditions": [
                condition("PodReadyToStartContainers"), condition("Initialized"), condition("Ready"),
                condition("ContainersReady"), condition("PodScheduled"),
            ],
            "hostIP": "172.18.0.7",
            "hostIPs": [{"ip": "172.18.0.7"}],
            "podIP": "10.244.1.17",
            "podIPs": [{"ip": "10.244.1.17"}],
            "startTime": TIMESTAMP,
            "initContainerStatuses": [{
                "name": "migrate", "state": {"terminated": {"exitCode": 0, "reason": "Completed", "startedAt": TIMESTAMP, "finishedAt": TIMESTAMP,
                    "containerID": "containerd://1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b"}},
                "lastState": {}, "ready": true, "restartCount": 0, "image": app_image,
                "imageID": format!("{app_image}@sha256:3f1a9c4e5b6d7e8f90a1b2c3d4e5f60718293a4b5c6d7e8f9a0b1c2d3e4f5a6b"),
                "containerID": "containerd://1a2b3c4d5e6f7a8b9c0d1e2f3a4b5c6d7e8f9a0b1c2d3e4f5a6b7c8d9e0f1a2b", "started": false,
            }],
            "containerStatuses": [container_status("app", app_image), container_status("proxy", proxy_image)],
            "qosClass": "Burstable",
        },
    })
}

pub(super) fn deployment_template() -> Value {
    json!({
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {
            "name": NAME, "namespace": NAMESPACE, "uid": UID, "resourceVersion": RV, "generation": 1,
            "creationTimestamp": TIMESTAMP,
            "labels": {"app": APP, "index": INDEX},
            "annotations": {"deployment.kubernetes.io/revision": "1"},
            "managedFields": [
                {"manager": "kubectl-client-side-apply", "operation": "Update", "apiVersion": "apps/v1", "time": TIMESTAMP,
                 "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {"f:labels": {".": {}, "f:app": {}, "f:index": {}}},
                    "f:spec": {"f:progressDeadlineSeconds": {}, "f:replicas": {}, "f:revisionHistoryLimit": {}, "f:selector": {},
                        "f:strategy": {"f:rollingUpdate": {".": {}, "f:maxSurge": {}, "f:maxUnavailable": {}}, "f:type": {}},
                        "f:template": {"f:metadata": {"f:labels": {".": {}, "f:app": {}}}, "f:spec": {"f:containers": {"k:{\"name\":\"app\"}": {
                            ".": {}, "f:image": {}, "f:imagePullPolicy": {}, "f:name": {}, "f:ports": {}, "f:resources": {}}}}}}}},
                {"manager": "kube-controller-manager", "operation": "Update", "apiVersion": "apps/v1", "time": TIMESTAMP,
                 "fieldsType": "FieldsV1", "subresource": "status", "fieldsV1": {"f:metadata": {"f:annotations": {".": {}, "f:deployment.kubernetes.io/revision": {}}},
                    "f:status": {"f:availableReplicas": {}, "f:conditions": {}, "f:observedGeneration": {}, "f:readyReplicas": {}, "f:replicas": {}, "f:updatedReplicas": {}}}},
            ],
        },
        "spec": {
            "replicas": 3,
            "selector": {"matchLabels": {"app": APP}},
            "template": {
                "metadata": {"labels": {"app": APP}},
                "spec": {
                    "containers": [{
                        "name": "app", "image": "registry.example.com/platform/app:v1.42.3", "imagePullPolicy": "IfNotPresent",
                        "ports": [{"containerPort": 8080, "protocol": "TCP"}],
                        "resources": {"limits": {"cpu": "500m", "memory": "512Mi"}, "requests": {"cpu": "100m", "memory": "128Mi"}},
                        "terminationMessagePath": "/dev/termination-log", "terminationMessagePolicy": "File",
                    }],
                    "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
                    "securityContext": {}, "schedulerName": "default-scheduler",
                },
            },
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxUnavailable": "25%", "maxSurge": "25%"}},
            "revisionHistoryLimit": 10,
            "progressDeadlineSeconds": 600,
        },
        "status": {
            "observedGeneration": 1, "replicas": 3, "updatedReplicas": 3, "readyReplicas": 3, "availableReplicas": 3,
            "conditions": [
                {"type": "Available", "status": "True", "lastUpdateTime": TIMESTAMP, "lastTransitionTime": TIMESTAMP,
                 "reason": "MinimumReplicasAvailable", "message": "Deployment has minimum availability."},
                {"type": "Progressing", "status": "True", "lastUpdateTime": TIMESTAMP, "lastTransitionTime": TIMESTAMP,
                 "reason": "NewReplicaSetAvailable", "message": "ReplicaSet \"web-7d4b9c8f5\" has successfully progressed."},
            ],
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::seed::SeedKind;

    #[test]
    fn generated_objects_carry_their_identity() {
        let pod = pod("ns1", "pod-7", 7);
        assert_eq!(pod.pointer("/metadata/name"), Some(&json!("pod-7")));
        assert_eq!(pod.pointer("/metadata/namespace"), Some(&json!("ns1")));
        assert_eq!(pod.pointer("/metadata/labels/app"), Some(&json!("app-7")));
        let size = serde_json::to_vec(&pod).map(|v| v.len()).unwrap_or(0);
        assert!((9_000..=13_000).contains(&size), "pod is {size} bytes");
        assert_eq!(config_map("a", "b", 1).pointer("/data/index"), Some(&json!("1")));
        assert_eq!(
            deployment("a", "b", 12).pointer("/spec/selector/matchLabels/app"),
            Some(&json!("app-2"))
        );
    }

    #[test]
    fn template_has_no_leftover_placeholders() {
        for kind in [SeedKind::Pods, SeedKind::ConfigMaps, SeedKind::Deployments] {
            let text =
                Template::compile(&kind.template()).render(&["n", "ns", "u", "1", "t", "0", "a"]);
            let text = String::from_utf8(text).expect("utf8");
            assert!(!text.contains("@@"), "{kind:?}");
            assert!(serde_json::from_str::<Value>(&text).is_ok());
        }
    }
}
