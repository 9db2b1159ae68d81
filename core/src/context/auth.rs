//! Identity comes from authentication, never from the prefix. Deployed, API Gateway's Cognito
//! authorizer supplies the `sub` claim. `AUTH_MODE=dev` (opt-in only) lets an `x-user-id` header,
//! or failing that the prefix's `user_id`, stand in for it.

use std::fmt;

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthMode {
    /// Only the authorizer's claims identify the user (the default).
    Jwt,
    /// Local development: `x-user-id` or the prefix `user_id` when no claims are present.
    Dev,
}

impl AuthMode {
    /// Reads `AUTH_MODE`: unset or `jwt` is `Jwt`, `dev` is `Dev`, anything else is an error so
    /// that a typo never silently weakens authentication.
    pub fn from_setting(value: Option<&str>) -> Result<AuthMode, String> {
        match value.map(str::trim) {
            None | Some("") | Some("jwt") => Ok(AuthMode::Jwt),
            Some("dev") => Ok(AuthMode::Dev),
            Some(other) => Err(format!("AUTH_MODE must be 'jwt' or 'dev', got '{other}'")),
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub enum AuthError {
    /// 401: nobody is authenticated.
    Unauthenticated,
    /// 403: the prefix names a different user than the authenticated one.
    UserMismatch,
    /// 401: the dev header is not a usable id.
    InvalidIdentity(String),
}

impl fmt::Display for AuthError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            AuthError::Unauthenticated => f.write_str("authentication required"),
            AuthError::UserMismatch => {
                f.write_str("the context prefix names a different user than the authenticated one")
            }
            AuthError::InvalidIdentity(why) => write!(f, "invalid identity: {why}"),
        }
    }
}

impl std::error::Error for AuthError {}

/// Decides who the caller is.
/// - `claims_sub`: the authorizer's `sub` claim, if the event carried one;
/// - `dev_header`: the `x-user-id` header (honoured only in `Dev` mode);
/// - `prefix_user`: the prefix's `user_id`, which must agree with the identity when present.
pub fn authenticate(
    mode: AuthMode,
    claims_sub: Option<&str>,
    dev_header: Option<&str>,
    prefix_user: Option<&str>,
) -> Result<String, AuthError> {
    let identity = match (claims_sub.filter(|s| !s.is_empty()), mode) {
        (Some(sub), _) => sub.to_string(),
        (None, AuthMode::Dev) => match dev_header.map(str::trim) {
            Some(h) if !h.is_empty() => {
                if !super::prefix::is_valid_id(h) {
                    return Err(AuthError::InvalidIdentity(
                        "x-user-id must be 1 to 128 letters, digits or - _ . : @ |".into(),
                    ));
                }
                h.to_string()
            }
            _ => prefix_user.ok_or(AuthError::Unauthenticated)?.to_string(),
        },
        (None, AuthMode::Jwt) => return Err(AuthError::Unauthenticated),
    };
    match prefix_user {
        Some(p) if p != identity => Err(AuthError::UserMismatch),
        _ => Ok(identity),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use AuthMode::*;

    #[test]
    fn mode_is_jwt_unless_dev_is_asked_for() {
        assert_eq!(AuthMode::from_setting(None), Ok(Jwt));
        assert_eq!(AuthMode::from_setting(Some("jwt")), Ok(Jwt));
        assert_eq!(AuthMode::from_setting(Some("dev")), Ok(Dev));
        assert!(AuthMode::from_setting(Some("DEV ")).is_err());
        assert!(AuthMode::from_setting(Some("off")).is_err());
    }

    #[test]
    fn claims_identify_the_user_in_both_modes() {
        assert_eq!(authenticate(Jwt, Some("u1"), None, None), Ok("u1".into()));
        assert_eq!(
            authenticate(Jwt, Some("u1"), None, Some("u1")),
            Ok("u1".into())
        );
        assert_eq!(
            authenticate(Dev, Some("u1"), Some("u2"), None),
            Ok("u1".into())
        );
    }

    #[test]
    fn prefix_user_must_match() {
        assert_eq!(
            authenticate(Jwt, Some("u1"), None, Some("u2")),
            Err(AuthError::UserMismatch)
        );
        assert_eq!(
            authenticate(Dev, None, Some("u1"), Some("u2")),
            Err(AuthError::UserMismatch)
        );
    }

    #[test]
    fn jwt_mode_ignores_dev_header_and_prefix() {
        assert_eq!(
            authenticate(Jwt, None, Some("u1"), Some("u1")),
            Err(AuthError::Unauthenticated)
        );
        assert_eq!(
            authenticate(Jwt, None, None, None),
            Err(AuthError::Unauthenticated)
        );
    }

    #[test]
    fn dev_mode_uses_header_then_prefix() {
        assert_eq!(authenticate(Dev, None, Some("u1"), None), Ok("u1".into()));
        assert_eq!(
            authenticate(Dev, None, Some("u1"), Some("u1")),
            Ok("u1".into())
        );
        assert_eq!(authenticate(Dev, None, None, Some("u3")), Ok("u3".into()));
        assert_eq!(
            authenticate(Dev, None, None, None),
            Err(AuthError::Unauthenticated)
        );
        assert!(matches!(
            authenticate(Dev, None, Some("a b"), None),
            Err(AuthError::InvalidIdentity(_))
        ));
    }
}
