/** Phone numbers: marketplace, purchase, assignment, outbound numbers (filled in by the phone-numbers slice). */
export const phoneNumberRoutes = {};
