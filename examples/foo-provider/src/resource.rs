//! `kube_core::Resource` for the Foo types.

macro_rules! foo_resource {
    ($ty:ty, $kind:expr, $version:expr, $plural:expr) => {
        impl kube_core::Resource for $ty {
            type DynamicType = ();
            type Scope = kube_core::NamespaceResourceScope;
            fn kind(_: &()) -> std::borrow::Cow<'_, str> {
                $kind.into()
            }
            fn group(_: &()) -> std::borrow::Cow<'_, str> {
                crate::GROUP.into()
            }
            fn version(_: &()) -> std::borrow::Cow<'_, str> {
                $version.into()
            }
            fn plural(_: &()) -> std::borrow::Cow<'_, str> {
                $plural.into()
            }
            fn meta(&self) -> &kube_core::ObjectMeta {
                &self.metadata
            }
            fn meta_mut(&mut self) -> &mut kube_core::ObjectMeta {
                &mut self.metadata
            }
        }
    };
}

pub(crate) use foo_resource;
