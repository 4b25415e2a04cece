//! The volume sources of core/v1 that are not CSI, hostPath, nfs, local or the projected
//! kinds (in-tree cloud and network disks, `gitRepo`, `ephemeral`, `image`), in their Pod
//! (`VolumeSource`) and PersistentVolume (`PersistentVolumeSource`) forms: the PV forms differ
//! in their `secretRef` (a `SecretReference` with a namespace, or an `ObjectReference` for
//! StorageOS) and a few namespace fields. Transcribed from k8s.io/api `core/v1/generated.proto`;
//! JSON presence from the Go types' tags (`.z()`: no `omitempty` or a pointer, as in the parent
//! module; `.rep().z()`: a list without `omitempty`, `null` in JSON when empty).

use super::storage_network::SECRET_REFERENCE;
use super::workloads::PVC_SPEC;
use super::*;

pub static GCE_PERSISTENT_DISK_VOLUME_SOURCE: Msg = Msg {
    name: "GCEPersistentDiskVolumeSource",
    fields: &[
        s(1, "pdName").z(),
        s(2, "fsType"),
        i(3, "partition"),
        b(4, "readOnly"),
    ],
};

pub static AWS_ELASTIC_BLOCK_STORE_VOLUME_SOURCE: Msg = Msg {
    name: "AWSElasticBlockStoreVolumeSource",
    fields: &[
        s(1, "volumeID").z(),
        s(2, "fsType"),
        i(3, "partition"),
        b(4, "readOnly"),
    ],
};

pub static GIT_REPO_VOLUME_SOURCE: Msg = Msg {
    name: "GitRepoVolumeSource",
    fields: &[s(1, "repository").z(), s(2, "revision"), s(3, "directory")],
};

pub static ISCSI_VOLUME_SOURCE: Msg = Msg {
    name: "ISCSIVolumeSource",
    fields: &[
        s(1, "targetPortal").z(),
        s(2, "iqn").z(),
        i(3, "lun").z(),
        s(4, "iscsiInterface"),
        s(5, "fsType"),
        b(6, "readOnly"),
        s(7, "portals").rep(),
        b(8, "chapAuthDiscovery"),
        b(11, "chapAuthSession"),
        m(10, "secretRef", &LOCAL_OBJECT_REFERENCE),
        s(12, "initiatorName").z(),
    ],
};

pub static ISCSI_PERSISTENT_VOLUME_SOURCE: Msg = Msg {
    name: "ISCSIPersistentVolumeSource",
    fields: &[
        s(1, "targetPortal").z(),
        s(2, "iqn").z(),
        i(3, "lun").z(),
        s(4, "iscsiInterface"),
        s(5, "fsType"),
        b(6, "readOnly"),
        s(7, "portals").rep(),
        b(8, "chapAuthDiscovery"),
        b(11, "chapAuthSession"),
        m(10, "secretRef", &SECRET_REFERENCE),
        s(12, "initiatorName").z(),
    ],
};

pub static GLUSTERFS_VOLUME_SOURCE: Msg = Msg {
    name: "GlusterfsVolumeSource",
    fields: &[s(1, "endpoints").z(), s(2, "path").z(), b(3, "readOnly")],
};

pub static GLUSTERFS_PERSISTENT_VOLUME_SOURCE: Msg = Msg {
    name: "GlusterfsPersistentVolumeSource",
    fields: &[
        s(1, "endpoints").z(),
        s(2, "path").z(),
        b(3, "readOnly"),
        s(4, "endpointsNamespace").z(),
    ],
};

pub static RBD_VOLUME_SOURCE: Msg = Msg {
    name: "RBDVolumeSource",
    fields: &[
        s(1, "monitors").rep().z(),
        s(2, "image").z(),
        s(3, "fsType"),
        s(4, "pool"),
        s(5, "user"),
        s(6, "keyring"),
        m(7, "secretRef", &LOCAL_OBJECT_REFERENCE),
        b(8, "readOnly"),
    ],
};

pub static RBD_PERSISTENT_VOLUME_SOURCE: Msg = Msg {
    name: "RBDPersistentVolumeSource",
    fields: &[
        s(1, "monitors").rep().z(),
        s(2, "image").z(),
        s(3, "fsType"),
        s(4, "pool"),
        s(5, "user"),
        s(6, "keyring"),
        m(7, "secretRef", &SECRET_REFERENCE),
        b(8, "readOnly"),
    ],
};

pub static FLEX_VOLUME_SOURCE: Msg = Msg {
    name: "FlexVolumeSource",
    fields: &[
        s(1, "driver").z(),
        s(2, "fsType"),
        m(3, "secretRef", &LOCAL_OBJECT_REFERENCE),
        b(4, "readOnly"),
        ms(5, "options"),
    ],
};

pub static FLEX_PERSISTENT_VOLUME_SOURCE: Msg = Msg {
    name: "FlexPersistentVolumeSource",
    fields: &[
        s(1, "driver").z(),
        s(2, "fsType"),
        m(3, "secretRef", &SECRET_REFERENCE),
        b(4, "readOnly"),
        ms(5, "options"),
    ],
};

pub static CINDER_VOLUME_SOURCE: Msg = Msg {
    name: "CinderVolumeSource",
    fields: &[
        s(1, "volumeID").z(),
        s(2, "fsType"),
        b(3, "readOnly"),
        m(4, "secretRef", &LOCAL_OBJECT_REFERENCE),
    ],
};

pub static CINDER_PERSISTENT_VOLUME_SOURCE: Msg = Msg {
    name: "CinderPersistentVolumeSource",
    fields: &[
        s(1, "volumeID").z(),
        s(2, "fsType"),
        b(3, "readOnly"),
        m(4, "secretRef", &SECRET_REFERENCE),
    ],
};

pub static CEPH_FS_VOLUME_SOURCE: Msg = Msg {
    name: "CephFSVolumeSource",
    fields: &[
        s(1, "monitors").rep().z(),
        s(2, "path"),
        s(3, "user"),
        s(4, "secretFile"),
        m(5, "secretRef", &LOCAL_OBJECT_REFERENCE),
        b(6, "readOnly"),
    ],
};

pub static CEPH_FS_PERSISTENT_VOLUME_SOURCE: Msg = Msg {
    name: "CephFSPersistentVolumeSource",
    fields: &[
        s(1, "monitors").rep().z(),
        s(2, "path"),
        s(3, "user"),
        s(4, "secretFile"),
        m(5, "secretRef", &SECRET_REFERENCE),
        b(6, "readOnly"),
    ],
};

pub static FLOCKER_VOLUME_SOURCE: Msg = Msg {
    name: "FlockerVolumeSource",
    fields: &[s(1, "datasetName"), s(2, "datasetUUID")],
};

pub static FC_VOLUME_SOURCE: Msg = Msg {
    name: "FCVolumeSource",
    fields: &[
        s(1, "targetWWNs").rep(),
        i(2, "lun").z(),
        s(3, "fsType"),
        b(4, "readOnly"),
        s(5, "wwids").rep(),
    ],
};

pub static AZURE_FILE_VOLUME_SOURCE: Msg = Msg {
    name: "AzureFileVolumeSource",
    fields: &[
        s(1, "secretName").z(),
        s(2, "shareName").z(),
        b(3, "readOnly"),
    ],
};

pub static AZURE_FILE_PERSISTENT_VOLUME_SOURCE: Msg = Msg {
    name: "AzureFilePersistentVolumeSource",
    fields: &[
        s(1, "secretName").z(),
        s(2, "shareName").z(),
        b(3, "readOnly"),
        s(4, "secretNamespace").z(),
    ],
};

pub static VSPHERE_VIRTUAL_DISK_VOLUME_SOURCE: Msg = Msg {
    name: "VsphereVirtualDiskVolumeSource",
    fields: &[
        s(1, "volumePath").z(),
        s(2, "fsType"),
        s(3, "storagePolicyName"),
        s(4, "storagePolicyID"),
    ],
};

pub static QUOBYTE_VOLUME_SOURCE: Msg = Msg {
    name: "QuobyteVolumeSource",
    fields: &[
        s(1, "registry").z(),
        s(2, "volume").z(),
        b(3, "readOnly"),
        s(4, "user"),
        s(5, "group"),
        s(6, "tenant"),
    ],
};

pub static AZURE_DISK_VOLUME_SOURCE: Msg = Msg {
    name: "AzureDiskVolumeSource",
    fields: &[
        s(1, "diskName").z(),
        s(2, "diskURI").z(),
        s(3, "cachingMode").z(),
        s(4, "fsType").z(),
        b(5, "readOnly").z(),
        s(6, "kind").z(),
    ],
};

pub static PHOTON_PERSISTENT_DISK_VOLUME_SOURCE: Msg = Msg {
    name: "PhotonPersistentDiskVolumeSource",
    fields: &[s(1, "pdID").z(), s(2, "fsType")],
};

pub static PORTWORX_VOLUME_SOURCE: Msg = Msg {
    name: "PortworxVolumeSource",
    fields: &[s(1, "volumeID").z(), s(2, "fsType"), b(3, "readOnly")],
};

pub static SCALE_IO_VOLUME_SOURCE: Msg = Msg {
    name: "ScaleIOVolumeSource",
    fields: &[
        s(1, "gateway").z(),
        s(2, "system").z(),
        m(3, "secretRef", &LOCAL_OBJECT_REFERENCE),
        b(4, "sslEnabled"),
        s(5, "protectionDomain"),
        s(6, "storagePool"),
        s(7, "storageMode"),
        s(8, "volumeName"),
        s(9, "fsType"),
        b(10, "readOnly"),
    ],
};

pub static SCALE_IO_PERSISTENT_VOLUME_SOURCE: Msg = Msg {
    name: "ScaleIOPersistentVolumeSource",
    fields: &[
        s(1, "gateway").z(),
        s(2, "system").z(),
        m(3, "secretRef", &SECRET_REFERENCE),
        b(4, "sslEnabled"),
        s(5, "protectionDomain"),
        s(6, "storagePool"),
        s(7, "storageMode"),
        s(8, "volumeName"),
        s(9, "fsType"),
        b(10, "readOnly"),
    ],
};

pub static STORAGE_OS_VOLUME_SOURCE: Msg = Msg {
    name: "StorageOSVolumeSource",
    fields: &[
        s(1, "volumeName"),
        s(2, "volumeNamespace"),
        s(3, "fsType"),
        b(4, "readOnly"),
        m(5, "secretRef", &LOCAL_OBJECT_REFERENCE),
    ],
};

pub static STORAGE_OS_PERSISTENT_VOLUME_SOURCE: Msg = Msg {
    name: "StorageOSPersistentVolumeSource",
    fields: &[
        s(1, "volumeName"),
        s(2, "volumeNamespace"),
        s(3, "fsType"),
        b(4, "readOnly"),
        m(5, "secretRef", &OBJECT_REFERENCE),
    ],
};

pub static PERSISTENT_VOLUME_CLAIM_TEMPLATE: Msg = Msg {
    name: "PersistentVolumeClaimTemplate",
    fields: &[m(1, "metadata", &OBJECT_META), m(2, "spec", &PVC_SPEC)],
};

pub static EPHEMERAL_VOLUME_SOURCE: Msg = Msg {
    name: "EphemeralVolumeSource",
    fields: &[m(
        1,
        "volumeClaimTemplate",
        &PERSISTENT_VOLUME_CLAIM_TEMPLATE,
    )],
};

pub static IMAGE_VOLUME_SOURCE: Msg = Msg {
    name: "ImageVolumeSource",
    fields: &[s(1, "reference"), s(2, "pullPolicy")],
};
