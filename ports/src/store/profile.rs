//! The profile (`PROFILE`), read with the text it was stored as, so that an edit writes only if
//! nobody changed it in between (the intake, the coach's tools and the app all write it).

use aws_sdk_dynamodb::operation::put_item::PutItemError;

use super::timing::Timed;
use super::{SK_PROFILE, Store, StoreError, from_item, key, s, string, to_doc};
use crate::domain::profile::Profile;

/// The profile as read, and its stored document (the condition of a later write).
#[derive(Debug, Clone, PartialEq)]
pub struct StoredProfile {
    pub profile: Profile,
    doc: String,
}

impl Store {
    /// The lifter's profile, strongly consistent; `None` before anything was stored.
    pub async fn stored_profile(&self, user: &str) -> Result<Option<StoredProfile>, StoreError> {
        let Some(item) = self.get_item(user, SK_PROFILE).await? else {
            return Ok(None);
        };
        Ok(Some(StoredProfile {
            profile: from_item(&item)?,
            doc: string(&item, "doc").unwrap_or_default(),
        }))
    }

    /// Writes `profile` if the stored one is still `read` (or, with `None`, there is none yet).
    /// False when it changed since: read again and re-apply.
    pub async fn replace_profile(
        &self,
        user: &str,
        profile: &Profile,
        read: Option<&StoredProfile>,
    ) -> Result<bool, StoreError> {
        let mut item = key(user, SK_PROFILE);
        item.insert("doc".into(), s(to_doc("profile", profile)?));
        let put = self
            .client
            .put_item()
            .table_name(&self.table)
            .set_item(Some(item));
        let put = match read {
            Some(r) => put
                .condition_expression("doc = :read")
                .expression_attribute_values(":read", s(&r.doc)),
            None => put.condition_expression("attribute_not_exists(pk)"),
        };
        match put.send().timed().await {
            Ok(_) => Ok(true),
            Err(e)
                if e.as_service_error()
                    .is_some_and(PutItemError::is_conditional_check_failed_exception) =>
            {
                Ok(false)
            }
            Err(e) => Err(e.into()),
        }
    }
}
