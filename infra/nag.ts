import { CfnElement, Names, Stack, Validations } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { ManagedPolicy } from 'aws-cdk-lib/aws-iam';
import type { IBucket } from 'aws-cdk-lib/aws-s3';
import type { IConstruct } from 'constructs';

/**
 * cdk-nag 3 suppressions are CDK acknowledgments: each finding id (e.g.
 * `AwsSolutions-IAM5[Resource::*]`) is acknowledged on the construct or an ancestor.
 */
export function acknowledge(scopes: IConstruct | IConstruct[], reason: string, ...ids: string[]): void {
  for (const scope of [scopes].flat()) for (const id of ids) Validations.of(scope).acknowledge({ id, reason });
}

/**
 * A value as cdk-nag prints it in finding ids: resolved, then flattened the way its
 * flattenCfnReference does (`{Ref: X}` → `<X>`, `{Fn::GetAtt: [R, A]}` → `<R.A>`).
 */
export function flattenForNag(scope: IConstruct, value: string): string {
  // In a nested stack a value of the parent arrives as a parameter named after the referenced
  // construct's unique id: `referenceto<unique id><attribute>`.
  const parent = Stack.of(scope).nestedStackParent;
  const uniqueIdOf = (logicalId: string): string => {
    const element = parent?.node
      .findAll()
      .find((c) => CfnElement.isCfnElement(c) && parent.getLogicalId(c) === logicalId);
    return element ? Names.uniqueId(element) : logicalId;
  };
  const visit = (node: unknown): string => {
    if (typeof node === 'string') return node.replace(/\$\{/g, '<').replace(/\}/g, '>');
    const fn = node as Record<string, unknown>;
    if (fn['Fn::Join']) {
      const [delimiter, items] = fn['Fn::Join'] as [string, unknown[]];
      return items.map(visit).join(delimiter);
    }
    if (fn['Fn::GetAtt']) {
      const [resource, attribute] = fn['Fn::GetAtt'] as [unknown, unknown];
      return parent
        ? `<referenceto${uniqueIdOf(visit(resource))}${visit(attribute)}>`
        : `<${visit(resource)}.${visit(attribute)}>`;
    }
    if (fn.Ref) return parent ? `<referenceto${uniqueIdOf(visit(fn.Ref))}Ref>` : `<${visit(fn.Ref)}>`;
    return JSON.stringify(node);
  };
  return visit((parent ?? Stack.of(scope)).resolve(value));
}

/** Id of the IAM5 finding for a wildcard resource (value may hold tokens). */
export function wildcardResourceFinding(scope: IConstruct, value: string): string {
  return `AwsSolutions-IAM5[Resource::${flattenForNag(scope, value)}]`;
}

/** Id of the IAM4 finding for an AWS-managed policy (the partition is a literal in env-specific stacks). */
export function managedPolicyFinding(scope: IConstruct, managedPolicyName: string): string {
  return `AwsSolutions-IAM4[Policy::${flattenForNag(scope, ManagedPolicy.fromAwsManagedPolicyName(managedPolicyName).managedPolicyArn)}]`;
}

/** Acknowledges the `<table>/index/*` resource a CDK table grant adds to `grantee`. */
export function acknowledgeTableGrant(grantee: IConstruct, table: ITable): void {
  acknowledge(
    grantee,
    "grantReadData/grantReadWriteData add <table>/index/* so queries can use the table's GSIs; scoped to this one table.",
    wildcardResourceFinding(grantee, `${table.tableArn}/index/*`),
  );
}

/** Acknowledges the wildcards a CDK bucket grant adds to `grantee`. */
export function acknowledgeBucketGrant(grantee: IConstruct, bucket: IBucket): void {
  acknowledge(
    grantee,
    'grantRead/grantReadWrite on this one bucket: object actions need <bucket>/*, and the CDK grant uses action families (s3:GetObject*, s3:List*, ...).',
    wildcardResourceFinding(grantee, `${bucket.bucketArn}/*`),
    ...['s3:GetObject*', 's3:GetBucket*', 's3:List*', 's3:DeleteObject*', 's3:Abort*'].map(
      (a) => `AwsSolutions-IAM5[Action::${a}]`,
    ),
  );
}
