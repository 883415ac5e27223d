import type { NumberType } from '../../shared/domain/number-pricing.ts';

export interface SimulatedNumber {
  phone_number: string;
  country_code: string;
  number_type: NumberType;
  capabilities: string[];
}

/**
 * A simulated carrier's stock of numbers for sale: valid numbers, Polish
 * mobile and landline, US local and toll-free, UK landline and mobile.
 */
function availableInventory(): Map<string, SimulatedNumber> {
  const numbers: SimulatedNumber[] = [];
  // Landlines (Polish and British geographic numbers) take calls only, as at the real carriers.
  const add = (prefix: string, count: number, country: string, type: NumberType) => {
    for (let i = 0; i < count; i += 1)
      numbers.push({
        phone_number: `${prefix}${String(i).padStart(2, '0')}`,
        country_code: country,
        number_type: type,
        capabilities: (country === 'PL' || country === 'GB') && type === 'local' ? ['voice'] : ['voice', 'sms'],
      });
  };
  add('+486012345', 20, 'PL', 'mobile');
  add('+482212345', 10, 'PL', 'local');
  add('+121255501', 10, 'US', 'local');
  add('+180020000', 5, 'US', 'toll_free');
  add('+4420794600', 10, 'GB', 'local');
  add('+4474001234', 10, 'GB', 'mobile');
  return new Map(numbers.map((number) => [number.phone_number, number]));
}

/**
 * A number a carrier account owns: its id at the carrier, where its incoming calls ring (Twilio's
 * VoiceUrl) and where texts to it are announced (Twilio's SmsUrl; none: the wire's default).
 */
export interface OwnedNumber extends SimulatedNumber {
  id: string;
  voiceUrl: string | null;
  smsUrl?: string | null;
}

/**
 * The carrier's numbers: its stock for sale (availableInventory) and the numbers each account owns
 * (by the account's key at the wire: a Twilio Account SID, a Telnyx connection id).
 */
export class NumberInventory {
  private readonly stock = availableInventory();
  private readonly owned = new Map<string, Map<string, OwnedNumber>>();

  /** A new account, owning nothing yet (accounts are searched for a number in the order they opened). */
  open(owner: string): void {
    if (!this.owned.has(owner)) this.owned.set(owner, new Map());
  }

  /** Numbers for sale in `country`, of `type` (any type without one). */
  forSale(country: string | null, type?: string | null): SimulatedNumber[] {
    return [...this.stock.values()].filter(
      (number) => number.country_code === country && (!type || number.number_type === type),
    );
  }

  /** The number on sale, if it is. */
  offer(e164: string): SimulatedNumber | undefined {
    return this.stock.get(e164);
  }

  /** `owner` buys a number on sale; it leaves the stock. */
  sell(
    owner: string,
    e164: string,
    id: string,
    urls: { voiceUrl?: string | null; smsUrl?: string | null } = {},
  ): OwnedNumber | undefined {
    const offered = this.stock.get(e164);
    if (!offered) return undefined;
    this.stock.delete(e164);
    return this.assign(owner, { ...offered, id, voiceUrl: urls.voiceUrl ?? null, smsUrl: urls.smsUrl ?? null });
  }

  /** Gives `owner` a number from outside the stock (one the account has from the start). */
  assign(owner: string, number: OwnedNumber): OwnedNumber {
    this.open(owner);
    this.owned.get(owner)!.set(number.phone_number, number);
    return number;
  }

  ownedBy(owner: string): OwnedNumber[] {
    return [...(this.owned.get(owner)?.values() ?? [])];
  }

  owns(owner: string, e164: string): boolean {
    return this.owned.get(owner)?.has(e164) ?? false;
  }

  /** The first account (in the order they got it) owning `e164`, and its number. */
  holder(e164: string): { owner: string; number: OwnedNumber } | undefined {
    for (const [owner, numbers] of this.owned) {
      const number = numbers.get(e164);
      if (number) return { owner, number };
    }
    return undefined;
  }

  /** `owner` gives up the number with this id (it does not go back on sale). */
  release(owner: string, id: string): OwnedNumber | undefined {
    const number = this.ownedBy(owner).find((each) => each.id === id);
    if (number) this.owned.get(owner)!.delete(number.phone_number);
    return number;
  }
}
