/** Endpoints per organization: fan-out reads them all for every event. */
export const MAX_WEBHOOKS_PER_ORGANIZATION = 20;
/** How long deliveries also carry the previous secret's signature after a rotation, by default. */
export const DEFAULT_ROTATION_OVERLAP_SECONDS = 86_400;
