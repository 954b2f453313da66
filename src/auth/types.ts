/**
 * Who a protected request acts for. Set by the authentication hook (src/auth/authenticate.ts)
 * before any handler of the partner scope runs; handlers read `request.user`.
 */
export interface AuthenticatedUser {
  /** Opaque `usr_…` id, the `user_id` login returns. */
  userId: string
  /** Display name, as GET /me reports it. */
  name: string
}

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the authentication hook; only read it inside the partner scope. */
    user: AuthenticatedUser
  }
}
