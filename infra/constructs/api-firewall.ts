import { CfnWebACL, CfnWebACLAssociation } from 'aws-cdk-lib/aws-wafv2';
import type { RestApi } from 'aws-cdk-lib/aws-apigateway';
import { Construct } from 'constructs';
import { BINARY_MEDIA_TYPES, GATEWAY_ERRORS, MAX_BODY_BYTES } from '../../shared/api/gateway.ts';
import { decimalAtLeastPattern } from '../../shared/domain/decimal-pattern.ts';

const TOO_LARGE_BODY = 'requestTooLarge';

/**
 * The API stage's web ACL. API Gateway accepts bodies up to 10 MB but cannot hand Lambda an event
 * over 6 MB (it would answer 5xx): a body that cannot fit is refused here with the API's own 413
 * `{detail}`, by its Content-Length (binary bodies are base64-encoded in the event, so their limit
 * is lower). Everything else passes.
 */
export class ApiFirewall extends Construct {
  readonly webAcl: CfnWebACL;

  constructor(scope: Construct, id: string, props: { api: RestApi }) {
    super(scope, id);
    const contentLengthAtLeast = (minimum: number): CfnWebACL.StatementProperty => ({
      regexMatchStatement: {
        fieldToMatch: { singleHeader: { Name: 'content-length' } },
        regexString: decimalAtLeastPattern(minimum),
        textTransformations: [{ priority: 0, type: 'NONE' }],
      },
    });
    const binaryContentType: CfnWebACL.StatementProperty = {
      regexMatchStatement: {
        fieldToMatch: { singleHeader: { Name: 'content-type' } },
        regexString: `^\\s*(?:${BINARY_MEDIA_TYPES.map((type) => type.replace(/[.+/]/g, (c) => `\\${c}`)).join('|')})\\s*(?:;|$)`,
        textTransformations: [{ priority: 0, type: 'LOWERCASE' }],
      },
    };
    const refuse: CfnWebACL.RuleActionProperty = {
      block: {
        customResponse: { responseCode: GATEWAY_ERRORS.requestTooLarge.status, customResponseBodyKey: TOO_LARGE_BODY },
      },
    };
    const visibility = (metricName: string): CfnWebACL.VisibilityConfigProperty => ({
      cloudWatchMetricsEnabled: true,
      metricName,
      sampledRequestsEnabled: true,
    });
    this.webAcl = new CfnWebACL(this, 'WebAcl', {
      scope: 'REGIONAL',
      description: 'Refuses request bodies that cannot fit a Lambda event with the API 413',
      defaultAction: { allow: {} },
      customResponseBodies: {
        [TOO_LARGE_BODY]: {
          contentType: 'APPLICATION_JSON',
          content: JSON.stringify({ detail: GATEWAY_ERRORS.requestTooLarge.detail }),
        },
      },
      rules: [
        {
          name: 'binary-body-too-large',
          priority: 0,
          statement: {
            andStatement: { statements: [binaryContentType, contentLengthAtLeast(MAX_BODY_BYTES.binary + 1)] },
          },
          action: refuse,
          visibilityConfig: visibility('BinaryBodyTooLarge'),
        },
        {
          name: 'body-too-large',
          priority: 1,
          statement: contentLengthAtLeast(MAX_BODY_BYTES.text + 1),
          action: refuse,
          visibilityConfig: visibility('BodyTooLarge'),
        },
      ],
      visibilityConfig: visibility('VoiceAgentApi'),
    });
    new CfnWebACLAssociation(this, 'StageAssociation', {
      resourceArn: props.api.deploymentStage.stageArn,
      webAclArn: this.webAcl.attrArn,
    });
  }
}
