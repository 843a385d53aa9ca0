//! The protobuf wire format (issue 18 scope 2): objects of many built-in kinds listed and
//! watched in protobuf equal the same objects in JSON, on the real kube-apiserver; informers
//! of a factory with `protobuf()` sync, follow changes and survive a restart of the server;
//! and types or servers without protobuf (a custom resource, testkit) fall back to JSON.

// The custom resource type is public, as in a user's crate; its derive gives its items the
// same visibility.
#![allow(unreachable_pub)]

use std::fmt::Debug;
use std::time::Duration;

use k8s_openapi::api::{
    apps::v1::{ControllerRevision, Deployment, StatefulSet},
    batch::v1::CronJob,
    certificates::v1::CertificateSigningRequest,
    coordination::v1::Lease,
    core::v1::{ConfigMap, Namespace, Node, PersistentVolume, Pod, Secret, Service},
    events::v1::Event,
    networking::v1::{Ingress, NetworkPolicy},
    policy::v1::PodDisruptionBudget,
    rbac::v1::ClusterRole,
};
use kube::api::{Api, ListParams, Patch, PatchParams, PostParams, WatchParams};
use kube::core::WatchEvent;
use kube::{Client, CustomResource, CustomResourceExt, Resource};
use kube_informers_runtime::{ApiListerWatcher, ListerWatcher, TypedInformerFactory};
use kube_informers_testkit::real::RealApiServer;
use kube_informers_tests::{
    Event as Seen, Recorder, cache_model, init_tracing, next_event, on_both_servers,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize, de::DeserializeOwned};
use serde_json::json;

/// A custom resource: no protobuf, so a protobuf factory's informer of it stays JSON.
#[derive(CustomResource, Deserialize, Serialize, Clone, Debug, JsonSchema)]
#[kube(group = "proto.example.com", version = "v1", kind = "Gadget", namespaced)]
pub struct GadgetSpec {
    /// How many.
    pub count: u32,
}

/// Creates `object` (JSON of a `K`) through `api`; returns the resourceVersion it was given.
async fn create<K>(api: &Api<K>, object: serde_json::Value) -> String
where
    K: Resource + Clone + DeserializeOwned + Serialize + Debug,
{
    let object: K = serde_json::from_value(object).expect("a valid manifest");
    let created =
        api.create(&PostParams::default(), &object).await.expect("the server creates the object");
    created.meta().resource_version.clone().expect("a resourceVersion")
}

/// Lists and watches (from resource version 0) every `K` of `api` once in JSON and once in
/// protobuf, asserts the objects are equal, and returns how many there are.
async fn same_in_both<K>(api: Api<K>) -> usize
where
    K: Resource<DynamicType = ()> + Clone + DeserializeOwned + Serialize + Debug + PartialEq,
    K: Send + Sync + 'static,
{
    let kind = K::kind(&());
    let json = ApiListerWatcher::new(api.clone());
    let proto = ApiListerWatcher::new(api.clone()).protobuf();
    assert!(!json.uses_protobuf());
    assert!(proto.uses_protobuf(), "{kind} has a protobuf schema");
    // The server answers this URL in protobuf when asked as the lister-watcher asks.
    let request = http::Request::get(api.resource_url())
        .header(http::header::ACCEPT, "application/vnd.kubernetes.protobuf, application/json")
        .body(kube::client::Body::empty())
        .unwrap();
    let response = api.clone().into_client().send(request).await.unwrap();
    assert_eq!(
        response.headers()[http::header::CONTENT_TYPE],
        "application/vnd.kubernetes.protobuf"
    );
    let from_json = json.list(&ListParams::default()).await.unwrap();
    let from_proto = proto.list(&ListParams::default()).await.unwrap();
    assert!(!from_json.items.is_empty(), "{kind}: nothing to compare");
    assert_eq!(from_json.types, from_proto.types, "{kind}");
    compare(&kind, &from_json.items, &from_proto.items);

    let count = from_json.items.len();
    let watched = |lw: ApiListerWatcher<K>| async move {
        use futures::StreamExt;
        let params = WatchParams::default().timeout(5);
        let events = lw.watch(&params, "0").await.unwrap();
        let objects: Vec<K> = events
            .take(count)
            .map(|event| match event.unwrap() {
                WatchEvent::Added(object) => object,
                other => panic!("{other:?}"),
            })
            .collect()
            .await;
        objects
    };
    let (watched_json, watched_proto) = (watched(json).await, watched(proto).await);
    compare(&kind, &watched_json, &watched_proto);
    compare(&kind, &from_json.items, &watched_proto);
    from_json.items.len()
}

/// Asserts two decodings of the same objects are equal, showing the first difference as JSON.
fn compare<K: Serialize + PartialEq>(kind: &str, json: &[K], proto: &[K]) {
    assert_eq!(json.len(), proto.len(), "{kind}");
    for (a, b) in json.iter().zip(proto) {
        if a != b {
            let (a, b) = (serde_json::to_value(a).unwrap(), serde_json::to_value(b).unwrap());
            panic!("{kind} differs:\nJSON:     {a}\nprotobuf: {b}");
        }
    }
}

/// A Pod using much of the spec: every volume source kind the server accepts without a
/// controller, probes with IntOrString ports, quantities, env from fields and secrets,
/// security contexts, tolerations and affinity.
fn rich_pod() -> serde_json::Value {
    json!({
        "metadata": {"name": "rich", "labels": {"app": "web", "tier": "front"},
            "annotations": {"note": "protobuf"}, "finalizers": ["example.com/keep"]},
        "spec": {
            "initContainers": [{"name": "init", "image": "busybox", "command": ["true"]}],
            "containers": [{
                "name": "app", "image": "nginx:1.27", "args": ["-g", "daemon off;"],
                "workingDir": "/srv",
                "ports": [{"name": "http", "containerPort": 8080, "protocol": "TCP"},
                          {"containerPort": 9090, "hostPort": 0}],
                "env": [{"name": "PLAIN", "value": ""},
                        {"name": "NODE", "valueFrom": {"fieldRef": {"fieldPath": "spec.nodeName"}}},
                        {"name": "PASS", "valueFrom": {"secretKeyRef": {"name": "s", "key": "k", "optional": true}}}],
                "resources": {"limits": {"cpu": "500m", "memory": "128Mi"},
                              "requests": {"cpu": "0.25", "memory": "64Mi", "ephemeral-storage": "1Gi"}},
                "volumeMounts": [{"name": "config", "mountPath": "/etc/config", "readOnly": true},
                                 {"name": "scratch", "mountPath": "/tmp"}],
                "livenessProbe": {"httpGet": {"path": "/healthz", "port": "http", "scheme": "HTTP"},
                                  "initialDelaySeconds": 3, "periodSeconds": 10},
                "readinessProbe": {"tcpSocket": {"port": 8080}, "failureThreshold": 1},
                "startupProbe": {"exec": {"command": ["cat", "/tmp/ready"]}},
                "lifecycle": {"preStop": {"sleep": {"seconds": 2}}},
                "securityContext": {"runAsNonRoot": true, "runAsUser": 1000, "allowPrivilegeEscalation": false,
                                    "capabilities": {"drop": ["ALL"]}, "readOnlyRootFilesystem": true},
                "imagePullPolicy": "IfNotPresent"
            }],
            "volumes": [
                {"name": "config", "configMap": {"name": "settings", "defaultMode": 420,
                    "items": [{"key": "a", "path": "a.conf"}]}},
                {"name": "scratch", "emptyDir": {"medium": "Memory", "sizeLimit": "64Mi"}},
                {"name": "secret", "secret": {"secretName": "s", "optional": false}},
                {"name": "projected", "projected": {"sources": [
                    {"serviceAccountToken": {"path": "token", "expirationSeconds": 3600}},
                    {"downwardAPI": {"items": [{"path": "labels", "fieldRef": {"fieldPath": "metadata.labels"}}]}}]}},
                {"name": "host", "hostPath": {"path": "/var/log", "type": "Directory"}}
            ],
            "restartPolicy": "Always", "terminationGracePeriodSeconds": 30, "dnsPolicy": "ClusterFirst",
            "nodeSelector": {"disk": "ssd"}, "serviceAccountName": "default", "hostname": "rich",
            "securityContext": {"fsGroup": 2000, "supplementalGroups": [1, 2, 3],
                                "sysctls": [{"name": "net.ipv4.ip_local_port_range", "value": "1024 65535"}]},
            "tolerations": [{"key": "dedicated", "operator": "Equal", "value": "web", "effect": "NoSchedule"},
                            {"operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 30}],
            "affinity": {"podAntiAffinity": {"preferredDuringSchedulingIgnoredDuringExecution": [{
                "weight": 50, "podAffinityTerm": {"topologyKey": "kubernetes.io/hostname",
                    "labelSelector": {"matchExpressions": [{"key": "app", "operator": "In", "values": ["web"]}]}}}]}},
            "topologySpreadConstraints": [{"maxSkew": 1, "topologyKey": "zone", "whenUnsatisfiable": "ScheduleAnyway",
                "labelSelector": {"matchLabels": {"app": "web"}}}],
            "priority": 0, "enableServiceLinks": false
        }
    })
}

/// Pod status as a kubelet writes it: times, conditions, container states, IPs.
fn pod_status() -> serde_json::Value {
    json!({"status": {
        "phase": "Running", "hostIP": "10.1.2.3", "podIP": "10.244.0.7",
        "podIPs": [{"ip": "10.244.0.7"}], "startTime": "2026-01-02T03:04:05Z", "qosClass": "Burstable",
        "conditions": [{"type": "Ready", "status": "True", "lastProbeTime": null,
                        "lastTransitionTime": "2026-01-02T03:04:06Z"}],
        "containerStatuses": [{"name": "app", "ready": true, "restartCount": 0, "image": "nginx:1.27",
            "imageID": "docker.io/library/nginx@sha256:abc", "containerID": "containerd://123", "started": true,
            "state": {"running": {"startedAt": "2026-01-02T03:04:06Z"}},
            "lastState": {"terminated": {"exitCode": 137, "reason": "OOMKilled",
                "startedAt": "2026-01-01T00:00:00Z", "finishedAt": "2026-01-01T00:01:00Z"}}}]
    }})
}

mod real_server {
    use super::*;

    async fn server() -> (RealApiServer, Client) {
        init_tracing();
        let server = RealApiServer::start().await.unwrap();
        let client = server.client();
        (server, client)
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn protobuf_objects_equal_json_objects_of_many_kinds() {
        let (server, client) = server().await;
        let ns = "default";
        let pods = Api::<Pod>::namespaced(client.clone(), ns);
        create(&pods, rich_pod()).await;
        create(&pods, json!({"metadata": {"name": "plain"}, "spec": {"containers": [{"name": "c", "image": "i"}]}}))
            .await;
        pods.patch_status("rich", &PatchParams::default(), &Patch::Merge(pod_status()))
            .await
            .unwrap();
        assert_eq!(same_in_both(pods).await, 2);

        let deployments = Api::<Deployment>::namespaced(client.clone(), ns);
        create(&deployments, json!({"metadata": {"name": "zero"}, "spec": {"replicas": 0,
            "selector": {"matchLabels": {"app": "zero"}},
            "strategy": {"type": "RollingUpdate", "rollingUpdate": {"maxSurge": "25%", "maxUnavailable": 0}},
            "template": {"metadata": {"labels": {"app": "zero"}},
                "spec": {"containers": [{"name": "c", "image": "i"}]}}}}))
        .await;
        let deployed = same_in_both(deployments.clone()).await;
        assert_eq!(deployed, 1);
        let zero = deployments.get("zero").await.unwrap();
        assert_eq!(zero.spec.replicas, Some(0), "a pointer's zero is kept");

        let statefulsets = Api::<StatefulSet>::namespaced(client.clone(), ns);
        create(&statefulsets, json!({"metadata": {"name": "db"}, "spec": {"serviceName": "db", "replicas": 1,
            "selector": {"matchLabels": {"app": "db"}},
            "template": {"metadata": {"labels": {"app": "db"}}, "spec": {"containers": [{"name": "c", "image": "i"}]}},
            "volumeClaimTemplates": [{"metadata": {"name": "data"}, "spec": {"accessModes": ["ReadWriteOnce"],
                "resources": {"requests": {"storage": "1Gi"}}}}]}}))
        .await;
        same_in_both(statefulsets).await;

        let services = Api::<Service>::namespaced(client.clone(), ns);
        create(&services, json!({"metadata": {"name": "web"}, "spec": {"selector": {"app": "web"},
            "ports": [{"name": "http", "port": 80, "targetPort": "http"},
                      {"name": "metrics", "port": 9090, "targetPort": 9091, "protocol": "TCP"}],
            "sessionAffinity": "ClientIP", "sessionAffinityConfig": {"clientIP": {"timeoutSeconds": 600}}}}))
        .await;
        create(
            &services,
            json!({"metadata": {"name": "headless"}, "spec": {"clusterIP": "None",
            "ports": [{"port": 5432}]}}),
        )
        .await;
        same_in_both(services).await;

        let config_maps = Api::<ConfigMap>::namespaced(client.clone(), ns);
        create(
            &config_maps,
            json!({"metadata": {"name": "settings"}, "data": {"a": "1", "empty": ""},
            "binaryData": {"bin": "AAEC/w=="}, "immutable": false}),
        )
        .await;
        same_in_both(config_maps).await;

        let secrets = Api::<Secret>::namespaced(client.clone(), ns);
        create(
            &secrets,
            json!({"metadata": {"name": "s"}, "type": "Opaque",
            "data": {"k": "AP8BAgM=", "empty": ""}, "stringData": {"text": "hello"}}),
        )
        .await;
        same_in_both(secrets).await;

        let cron_jobs = Api::<CronJob>::namespaced(client.clone(), ns);
        create(
            &cron_jobs,
            json!({"metadata": {"name": "nightly"}, "spec": {"schedule": "0 3 * * *",
            "suspend": true, "jobTemplate": {"spec": {"backoffLimit": 0, "template": {"spec": {
                "restartPolicy": "Never", "containers": [{"name": "c", "image": "i"}]}}}}}}),
        )
        .await;
        same_in_both(cron_jobs).await;

        let revisions = Api::<ControllerRevision>::namespaced(client.clone(), ns);
        create(
            &revisions,
            json!({"metadata": {"name": "rev-1"}, "revision": 1,
            "data": {"spec": {"template": {"x": [1, 2.5, "three", null, true]}}}}),
        )
        .await;
        same_in_both(revisions).await;

        let leases = Api::<Lease>::namespaced(client.clone(), ns);
        create(
            &leases,
            json!({"metadata": {"name": "leader"}, "spec": {"holderIdentity": "me",
            "leaseDurationSeconds": 15, "acquireTime": "2026-01-02T03:04:05.123456Z",
            "renewTime": "2026-01-02T03:04:06.000001Z", "leaseTransitions": 0}}),
        )
        .await;
        same_in_both(leases).await;

        let events = Api::<Event>::namespaced(client.clone(), ns);
        create(&events, json!({"metadata": {"name": "ev"}, "eventTime": "2026-01-02T03:04:05.654321Z",
            "reportingController": "example.com/ctl", "reportingInstance": "ctl-1", "action": "Sync",
            "reason": "Synced", "type": "Normal", "note": "done",
            "regarding": {"kind": "Pod", "namespace": ns, "name": "rich"}}))
        .await;
        same_in_both(events).await;

        let ingresses = Api::<Ingress>::namespaced(client.clone(), ns);
        create(
            &ingresses,
            json!({"metadata": {"name": "web"}, "spec": {"rules": [{"host": "example.com",
            "http": {"paths": [{"path": "/", "pathType": "Prefix",
                "backend": {"service": {"name": "web", "port": {"number": 80}}}}]}}]}}),
        )
        .await;
        same_in_both(ingresses).await;

        let policies = Api::<NetworkPolicy>::namespaced(client.clone(), ns);
        create(&policies, json!({"metadata": {"name": "deny"}, "spec": {"podSelector": {},
            "policyTypes": ["Ingress"], "ingress": [{"ports": [{"port": "http"}, {"port": 53, "protocol": "UDP", "endPort": 60}]}]}}))
        .await;
        same_in_both(policies).await;

        let budgets = Api::<PodDisruptionBudget>::namespaced(client.clone(), ns);
        create(
            &budgets,
            json!({"metadata": {"name": "web"}, "spec": {"minAvailable": "50%",
            "selector": {"matchLabels": {"app": "web"}}}}),
        )
        .await;
        same_in_both(budgets).await;

        // Cluster-scoped kinds.
        let nodes = Api::<Node>::all(client.clone());
        create(&nodes, json!({"metadata": {"name": "node-1", "labels": {"kubernetes.io/hostname": "node-1"}},
            "spec": {"podCIDR": "10.244.0.0/24", "podCIDRs": ["10.244.0.0/24"],
                "taints": [{"key": "dedicated", "value": "web", "effect": "NoSchedule"}], "unschedulable": false}}))
        .await;
        nodes
            .patch_status("node-1", &PatchParams::default(), &Patch::Merge(json!({"status": {
                "capacity": {"cpu": "4", "memory": "16Gi", "pods": "110"},
                "allocatable": {"cpu": "3900m", "memory": "15Gi", "pods": "110"},
                "conditions": [{"type": "Ready", "status": "True", "lastHeartbeatTime": "2026-01-02T03:04:05Z",
                    "lastTransitionTime": "2026-01-02T03:04:05Z", "reason": "KubeletReady", "message": "ok"}],
                "addresses": [{"type": "InternalIP", "address": "10.1.2.3"}],
                "nodeInfo": {"machineID": "m", "systemUUID": "u", "bootID": "b", "kernelVersion": "6",
                    "osImage": "linux", "containerRuntimeVersion": "containerd://2", "kubeletVersion": "v1.36.3",
                    "kubeProxyVersion": "", "operatingSystem": "linux", "architecture": "amd64"}}})))
            .await
            .unwrap();
        same_in_both(nodes).await;

        same_in_both(Api::<Namespace>::all(client.clone())).await;

        let volumes = Api::<PersistentVolume>::all(client.clone());
        create(
            &volumes,
            json!({"metadata": {"name": "pv-1"}, "spec": {"capacity": {"storage": "10Gi"},
            "accessModes": ["ReadWriteOnce"], "persistentVolumeReclaimPolicy": "Retain",
            "hostPath": {"path": "/data"}, "mountOptions": ["ro"]}}),
        )
        .await;
        same_in_both(volumes).await;

        let roles = Api::<ClusterRole>::all(client.clone());
        create(
            &roles,
            json!({"metadata": {"name": "reader"}, "rules": [
            {"apiGroups": [""], "resources": ["pods"], "verbs": ["get", "list", "watch"]},
            {"nonResourceURLs": ["/healthz"], "verbs": ["get"]}]}),
        )
        .await;
        same_in_both(roles).await;

        // `spec.extra` (a map of ExtraValue) comes from the requester: impersonate one.
        let csrs = Api::<CertificateSigningRequest>::all(client.clone());
        let body = json!({"apiVersion": "certificates.k8s.io/v1", "kind": "CertificateSigningRequest",
            "metadata": {"name": "alice"}, "spec": {"request": CSR_PEM_BASE64,
                "signerName": "example.com/signer", "expirationSeconds": 3600, "usages": ["client auth"]}});
        let request =
            http::Request::post("/apis/certificates.k8s.io/v1/certificatesigningrequests")
                .header(http::header::CONTENT_TYPE, "application/json")
                .header("Impersonate-User", "alice")
                .header("Impersonate-Group", "system:masters")
                .header("Impersonate-Extra-scopes", "read")
                .header("Impersonate-Extra-scopes", "write")
                .body(serde_json::to_vec(&body).unwrap())
                .unwrap();
        let created: CertificateSigningRequest = client.request(request).await.unwrap();
        assert_eq!(created.spec.extra.as_ref().unwrap()["scopes"], ["read", "write"]);
        same_in_both(csrs).await;
        server.shutdown().await;
    }

    /// A CSR for `CN=alice` (a throwaway key), base64 of its PEM: the server parses it.
    const CSR_PEM_BASE64: &str = "LS0tLS1CRUdJTiBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0KTUlIS01ISUNBUUF3RURFT01Bd0dBMVVFQXd3RllXeHBZMlV3V1RBVEJnY3Foa2pPUFFJQkJnZ3Foa2pPUFFNQgpCd05DQUFUbmxzQUdmelFCa0NPVmt2bTM3WGZkRElDbmcydlcyM2dhQS85TDFzemI4K2pId2VmTDFEM3pHMFN3CjU1TXlFRjZYa2NwVXdIN2VEM2lUWWJIeVphRFZvQUF3Q2dZSUtvWkl6ajBFQXdJRFNBQXdSUUloQUtZMWN1UUwKVmFQMGVRNjJHNzUxZkhSbFlWWm9MN0piR0N1R2RUSDRwdzhzQWlCTFk4ZnlyTEs2NjJkaEtGZE5ybnFKdTBPdApKOGIvaFZDUGIyeU8vSm5VZnc9PQotLS0tLUVORCBDRVJUSUZJQ0FURSBSRVFVRVNULS0tLS0K";

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_protobuf_factory_syncs_follows_changes_and_survives_a_restart() {
        let (server, client) = server().await;
        let config_maps = Api::<ConfigMap>::namespaced(client.clone(), "default");
        let mut last = String::new();
        for i in 0..20 {
            last = create(
                &config_maps,
                json!({"metadata": {"name": format!("cm-{i}")}, "data": {"i": i.to_string()}}),
            )
            .await;
        }
        let last = last.parse().unwrap();
        server.wait_for_watch_cache(config_maps.resource_url(), last).await.unwrap();
        for (strip, streaming) in [(false, false), (true, false), (false, true)] {
            let mut builder =
                TypedInformerFactory::builder(client.clone()).namespace("default").protobuf();
            if strip {
                builder = builder.strip_managed_fields();
            }
            if streaming {
                builder =
                    builder.reflector_config(kube_informers_runtime::reflector::ReflectorConfig {
                        streaming_list: true,
                        ..Default::default()
                    });
            }
            let factory = builder.build();
            let informer = factory.informer_for::<ConfigMap>();
            let (recorder, mut events) = Recorder::new();
            informer.add_event_handler(recorder).unwrap();
            factory.start();
            assert!(
                factory
                    .wait_for_cache_sync_timeout(Duration::from_secs(30))
                    .await
                    .values()
                    .all(|ok| *ok)
            );
            for _ in 0..20 {
                assert!(matches!(next_event(&mut events).await, Seen::Add(..)));
            }
            // The cache holds what a JSON list returns (without managedFields when stripped).
            let listed = config_maps.list(&ListParams::default()).await.unwrap().items;
            let mut cached: Vec<ConfigMap> =
                informer.get_indexer().list().iter().map(|cm| (**cm).clone()).collect();
            cached.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
            let mut expected = listed.clone();
            expected.sort_by(|a, b| a.metadata.name.cmp(&b.metadata.name));
            if strip {
                expected.iter_mut().for_each(|cm| cm.metadata.managed_fields = None);
                assert!(cached.iter().all(|cm| cm.metadata.managed_fields.is_none()));
            }
            compare("ConfigMap", &expected, &cached);

            // Add, update, delete arrive through the protobuf watch.
            let name = format!("live-{strip}-{streaming}");
            let key = format!("default/{name}");
            create(&config_maps, json!({"metadata": {"name": name}, "data": {"v": "1"}})).await;
            let event = next_event(&mut events).await;
            assert!(matches!(event, Seen::Add(..)) && event.key() == key);
            config_maps
                .patch(&name, &PatchParams::default(), &Patch::Merge(json!({"data": {"v": "2"}})))
                .await
                .unwrap();
            let event = next_event(&mut events).await;
            assert!(matches!(event, Seen::Update(..)) && event.key() == key);
            let updated = informer.get_indexer().get_by_key(&key).unwrap();
            assert_eq!(updated.data.as_ref().unwrap()["v"], "2");
            config_maps.delete(&name, &Default::default()).await.unwrap();
            let event = next_event(&mut events).await;
            assert!(matches!(event, Seen::Delete(..)) && event.key() == key);

            if !strip && !streaming {
                // The watch breaks with the server; the reflector re-watches in protobuf.
                server.restart_apiserver().await.unwrap();
                let after = "after-restart";
                create(&config_maps, json!({"metadata": {"name": after}})).await;
                let event = next_event(&mut events).await;
                assert!(
                    matches!(event, Seen::Add(..)) && event.key() == format!("default/{after}"),
                    "a change after the restart arrives"
                );
                config_maps.delete(after, &Default::default()).await.unwrap();
                assert!(matches!(next_event(&mut events).await, Seen::Delete(_)));
            }
            assert_eq!(cache_model(&informer.get_indexer().list()).len(), 20);
            factory.shutdown().await;
        }
        server.shutdown().await;
    }

    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn a_protobuf_watch_from_a_compacted_version_gets_an_error_event_and_errors_decode() {
        let (server, client) = server().await;
        let config_maps = Api::<ConfigMap>::namespaced(client.clone(), "default");
        for i in 0..3 {
            create(&config_maps, json!({"metadata": {"name": format!("cm-{i}")}})).await;
        }
        let before =
            config_maps.list(&ListParams::default()).await.unwrap().metadata.resource_version;
        create(&config_maps, json!({"metadata": {"name": "later"}})).await;
        // A compacted etcd and a fresh watch cache: the old version is gone (410).
        server.compact_etcd().await.unwrap();
        server.restart_apiserver().await.unwrap();
        let proto = ApiListerWatcher::new(config_maps.clone()).protobuf();
        let mut events = proto.watch(&WatchParams::default(), &before.unwrap()).await.unwrap();
        use futures::StreamExt;
        match events.next().await.unwrap().unwrap() {
            WatchEvent::Error(status) => assert_eq!(status.code, 410, "{status:?}"),
            other => panic!("{other:?}"),
        }
        // An error response's protobuf Status becomes kube::Error::Api with its code.
        let err =
            ListerWatcher::list(&proto, &ListParams::default().limit(1).continue_token("bogus"))
                .await
                .unwrap_err();
        match err {
            kube::Error::Api(status) => {
                assert!(status.code >= 400 && !status.message.is_empty(), "{status:?}")
            }
            other => panic!("{other:?}"),
        }
        server.shutdown().await;
    }
}

on_both_servers! {
async fn a_protobuf_factory_falls_back_to_json_for_custom_resources_and_json_servers(server) {
    let client = server.client().unwrap();
    server.register_crd(&serde_json::to_value(Gadget::crd()).unwrap()).await.unwrap();
    let gadgets = Api::<Gadget>::namespaced(client.clone(), "default");
    gadgets.create(&PostParams::default(), &Gadget::new("g", GadgetSpec { count: 3 })).await.unwrap();
    let config_maps = Api::<ConfigMap>::namespaced(client.clone(), "default");
    let last = create(&config_maps, json!({"metadata": {"name": "cm"}, "data": {"k": "v"}})).await;
    for url in [gadgets.resource_url(), config_maps.resource_url()] {
        server.wait_for_watch_cache(url, &last).await.expect("watch cache");
    }
    assert!(!ApiListerWatcher::new(gadgets.clone()).protobuf().uses_protobuf());

    let factory = TypedInformerFactory::builder(client.clone()).protobuf().build();
    let gadget_informer = factory.informer_for::<Gadget>();
    let config_map_informer = factory.informer_for::<ConfigMap>();
    factory.start();
    assert!(factory.wait_for_cache_sync_timeout(Duration::from_secs(30)).await.values().all(|ok| *ok));
    assert_eq!(gadget_informer.get_indexer().get_by_key("default/g").unwrap().spec.count, 3);
    // testkit answers JSON to the protobuf Accept header; the real server protobuf.
    let cm = config_map_informer.get_indexer().get_by_key("default/cm").unwrap();
    assert_eq!(cm.data.as_ref().unwrap()["k"], "v");
    gadgets.create(&PostParams::default(), &Gadget::new("h", GadgetSpec { count: 4 })).await.unwrap();
    create(&config_maps, json!({"metadata": {"name": "cm2"}})).await;
    let deadline = std::time::Instant::now() + Duration::from_secs(20);
    while (gadget_informer.get_indexer().len() < 2 || config_map_informer.get_indexer().get_by_key("default/cm2").is_none())
        && std::time::Instant::now() < deadline
    {
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
    assert_eq!(gadget_informer.get_indexer().len(), 2);
    assert!(config_map_informer.get_indexer().get_by_key("default/cm2").is_some());
    factory.shutdown().await;
    server.shutdown().await;
}
}
