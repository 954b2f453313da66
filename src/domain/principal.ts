/** Who a protected request acts for: the user a valid token names (src/services/auth). */
export interface Principal {
  /** Opaque `usr_…` id, the `user_id` login returns. */
  userId: string
  /** Display name, as GET /me reports it. */
  name: string
}
