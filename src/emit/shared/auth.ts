/** What every output says of a service's authentication, decided once. */
import type { Auth } from "../../model/types.js";

/**
 * True when the service issues access tokens itself: `oauth2` among its schemes and its token endpoint not
 * turned off (`auth.oauth2.tokenEndpoint: false` leaves only an external issuer's tokens). The runtime's
 * OAuth2.issues says the same.
 */
export function issuesTokens(auth: Auth): boolean {
  return auth.schemes.includes("oauth2") && auth.oauth2?.tokenEndpoint !== false;
}
